#pragma once
// Sharding the suite: `kbench run --shard i/N` runs one of N disjoint parts of the plan, so that N machines
// (CI jobs) share one nightly run, as Playwright's and Jest's `--shard=i/N` do.

#include <kbench/suite/suite.hpp>

#include <cstddef>
#include <string_view>
#include <vector>

namespace kbench::suite {

/// Shard `index` of `count`, 1-based: 1 <= index <= count.
struct shard_spec {
  std::size_t index = 1;
  std::size_t count = 1;
};

/// Parses "i/N" (decimal, 1 <= i <= N, no spaces or signs), e.g. "2/4". Throws usage_error naming the valid
/// form on anything else.
[[nodiscard]] shard_spec parse_shard(std::string_view text);

/// The items of shard `shard.index` of `shard.count`, in plan order: item k (0-based) of the plan belongs to
/// shard (k mod N) + 1.
///
/// Why round-robin and not N contiguous slices: the plan lists each kernel's shapes in increasing size, so
/// contiguous slices would hand one runner whole kernels (and all their large shapes) while round-robin sends
/// a kernel's consecutive shapes to different runners. It is deterministic (depends only on the plan), the
/// shard sizes differ by at most one, and shards 1..N together are the plan with no item twice. It balances
/// counts, not cost: each shape's timing fills the same --target-ms budget, so items cost about the same, and
/// no work estimate could split the one item (the largest bmm) that would dominate it anyway.
///
/// A shard of a plan shorter than N may be empty.
[[nodiscard]] std::vector<suite_item> select_shard(const std::vector<suite_item>& plan,
                                                   const shard_spec& shard);

}  // namespace kbench::suite
