#pragma once
// The torch baseline at its best: the settings that change libtorch's speed on the cpu -- its intra-op
// thread count and how long libgomp's idle threads spin before they sleep (GOMP_SPINCOUNT) -- are tuned per
// kernel x shape, like a kbench config, and cached, so that a speedup compares kbench's best with torch's
// best. Either setting alone can make torch many times slower on a small host (docs/baseline.md gives the
// figures).
//
// The thread count is a config of the torch binding ("threads", applied by the binding before each call),
// so every count is timed in one worker, interleaved (turns, each after an untimed call, as `kbench run`
// times kbench against torch). The spin count is read by libgomp once, when the process starts, so each spin
// count gets its own worker, twice, alternating, and a setting scores the slower of its two medians (one
// that is fast in one process and slow in the next is not its best); the lowest score wins. A GOMP_SPINCOUNT
// set by the user is kept and only the thread count is tuned.

#include <kbench/device.hpp>
#include <kbench/suite/baseline_setting.hpp>
#include <kbench/suite/kernel.hpp>
#include <kbench/suite/tune_shape.hpp>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace kbench::suite {

/// The spin counts tried when GOMP_SPINCOUNT is not set: kbench's short one (worker_process.hpp) and
/// libgomp's default (300000, milliseconds of polling).
[[nodiscard]] std::vector<std::int64_t> baseline_spin_counts();

/// The thread counts tried on `cores` cores: 1, 2, 4, ... below `cores`, then `cores`.
[[nodiscard]] std::vector<std::int64_t> baseline_thread_counts(unsigned cores);
/// In this process (a worker started with one spin count): binds the torch baseline once per thread count,
/// checks each against the reference, and times them interleaved, each filling about `target_ms`.
/// Candidates in thread order; `spin` is this process's GOMP_SPINCOUNT.
[[nodiscard]] std::vector<baseline_candidate> time_baseline_thread_counts(const kernel_definition& kernel,
                                                                          std::size_t shape_index,
                                                                          std::uint64_t seed,
                                                                          double target_ms);

struct baseline_options {
  std::uint64_t seed = 0;
  double target_ms = 50;   // [ms] per thread count, in each spin count's worker
  double timeout_s = 120;  // [s] per worker
  int rounds = 2;          // workers per spin count, alternating; a setting scores its slowest median
  cache_mode cache = cache_mode::read_write;
  std::filesystem::path cache_directory = tune::tuning_cache::default_directory();
};

/// The baseline's setting for one kernel x shape: the cached one (tuning cache, backend "torch"), or tuned
/// now in one `kbench worker` (task "baseline-settings") per spin count. Throws kbench::error when the kernel
/// has no torch baseline; a worker that fails only loses its candidates (warnings), and when every one
/// fails, the result has threads 0 (libtorch's defaults) and says why.
[[nodiscard]] baseline_setting choose_baseline_setting(const kernel_definition& kernel,
                                                       std::size_t shape_index,
                                                       const device_info& torch_device,
                                                       const baseline_options& options);

}  // namespace kbench::suite
