#pragma once
// The tuner's last step: which of the configs re-timed interleaved at the end wins. The fastest median,
// unless others tie with it (their medians lie within the 99% confidence interval of the fastest's) and the
// space marks a parameter whose higher values are preferred on a tie (tune::parameter::prefer_higher_on_tie,
// e.g. the cpu kernels' ISA): then the tied config with the highest such values, and the fastest of those.
//
// Why: a memory-bound kernel re-timed while the memory is slow ties at the memory's floor with every config
// that reaches it, and the fastest median among them is a coin flip, which may land on one without the
// compute headroom the kernel needs when the memory is fast (docs/code-figures.md).

#include <kbench/suite/detail/trial_messages.hpp>
#include <kbench/tune/space.hpp>

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

namespace kbench::suite {

struct final_pick {
  std::size_t chosen = 0;         // index into the re-timed outcomes
  std::size_t fastest = 0;        // the outcome with the lowest median
  std::vector<std::size_t> tied;  // ok outcomes whose median is within the fastest's interval (it included)
  [[nodiscard]] bool by_preference() const { return chosen != fastest; }
};

/// The pick among `retimed` (only ok outcomes count); nullopt when none is ok. Overlapping intervals are
/// not a tie: two configs can overlap while one is several percent slower by the medians
/// (docs/code-figures.md). A fastest outcome without an interval (both bounds 0) ties only at its exact
/// median.

[[nodiscard]] std::optional<final_pick> pick_final(std::span<const trial_outcome> retimed,
                                                   const tune::space& space);

}  // namespace kbench::suite
