#pragma once
// The benchmarking primitives (the analogues of Triton's compute_repeat / do_bench / interleaved_bench):
// every call is timed with the synchronized protocol and every wait is verified (sync.hpp).

#include <kbench/bench_target.hpp>
#include <kbench/stats.hpp>

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kbench {

enum class return_mode { min, max, mean, median, all };

/// Stop sampling early once the noise is low enough, or late when it is not (nvbench's criterion).
struct noise_stop {
  std::size_t min_samples = 10;
  double max_relative_noise = 0.005;  // stop once the 99% CI of the median / median is below this [fraction]
  double min_time_ms = 50;            // sample at least this long [ms]
  double timeout_ms = 10000;          // give up after this long, noisy or not [ms]
};

struct bench_options {
  double warmup_ms = 25;  // warm-up budget [ms]
  double rep_ms = 100;    // measurement budget [ms]; the repeat count is derived from it
  bool flush_cache = false;
  std::size_t flush_bytes = 0;     // size of the flush buffer [bytes]; 0 = last_level_flush_bytes()
  std::optional<noise_stop> stop;  // when set, replaces the fixed repeat count
};

/// Samples of one target, each the synchronized wall latency of one call [ms].
struct bench_result {
  std::string name;
  std::vector<double> samples_ms;
  summary stats;
  int sync_violations = 0;  // waits that returned before the work was complete
  bool stopped_by_noise = false;
  /// The statistic chosen by `mode` (all: the median).
  [[nodiscard]] double value(return_mode mode) const;
  /// Quantiles of the samples, one per entry of `qs`.
  [[nodiscard]] std::vector<double> quantiles(std::span<const double> qs) const;
};

/// One synchronized sample: sync on the previous work -> start -> call -> sync(result) -> stop [ms].
/// Adds to `violations` the waits that returned early.
[[nodiscard]] double time_one_call(const bench_target& target, int& violations);

/// Times 5 back-to-back synchronized calls (2, when 2 of them each take target_ms / min_repeat or more) and
/// returns how many repeats fill `target_ms`, clamped to [min_repeat, max_repeat]. An estimate of 0 ms gives
/// max_repeat.
[[nodiscard]] int compute_repeat(const bench_target& target, double target_ms = 100, int min_repeat = 10,
                                 int max_repeat = 1000);

/// Warm-up, then timed synchronized calls, optionally flushing the cache before each and stopping on noise.
[[nodiscard]] bench_result do_bench(const bench_target& target, const bench_options& options = {});

/// Round-robin over `targets` (a, b, c, a, b, c, ...) for `repeat` rounds after `warmup` rounds, so that
/// drift in the machine hits every implementation alike. One result per target, in order.
///
/// With `calls_per_turn` > 1 (and more than one target) each target keeps the turn for that many timed calls
/// (a a a b b b ...), and every turn starts with one untimed synchronized call. Why: on a host that also runs
/// the kernels (the cpu backend), the implementation that ran before leaves its threads behind -- libgomp's
/// threads under torch spin for milliseconds after each parallel region -- and the first call after a switch
/// can wait a whole scheduler slice for a core (docs/code-figures.md). The untimed call absorbs that; the
/// timed ones that

/// follow see the machine as a caller who keeps calling the same kernel does.
[[nodiscard]] std::vector<bench_result> interleaved_bench(std::span<const bench_target> targets, int repeat,
                                                          int warmup = 1, int calls_per_turn = 1);

/// The timed calls per turn for interleaved_bench over `repeat` rounds of calls whose slowest median is
/// `slowest_ms` [ms]: enough for a turn of about 20 ms, at least 4 (each turn costs one more untimed call),
/// and at most repeat / 4, so that every target gets at least 4 turns. Short turns let the other target's
/// idle threads still spin through this one's calls on the cpu backend (docs/code-figures.md). An unknown
/// time (0 or less) gives 4; fewer than 8 rounds give 1 (plain alternation:

/// calls that long, of target_ms / 8 or more, are not the ones a switch disturbs).
[[nodiscard]] int interleaved_calls_per_turn(double slowest_ms, int repeat);

}  // namespace kbench
