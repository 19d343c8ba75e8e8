#pragma once
// The three measures of one implementation: wall latency, throughput and device time, with the capture and
// sync checks beside them (docs/measurement.md).

#include <kbench/bench_target.hpp>
#include <kbench/contention.hpp>
#include <kbench/stats.hpp>
#include <kbench/timing_budget.hpp>

#include <string>
#include <vector>

namespace kbench {

struct measure_options {
  int repeat = 0;  // wall-latency samples; 0 = compute_repeat(target, target_ms)
  double target_ms = default_timing_budget.target_ms;  // time budget that compute_repeat fills [ms]
  int warmup = 2;                                      // warm-up calls, each synced on its own result
  int throughput_calls = 0;                            // calls per throughput batch; 0 = repeat
  int throughput_batches = 3;                          // batches; throughput is the median over batches
  bool flush_cache = false;                            // flush before every wall-latency sample
  /// [s] The contention window (measurement::machine) is extended, idle, to at least this long
  /// (contention_probe::finish); 0 where the caller judges a longer window of its own.
  double min_machine_window_s = min_judged_window_s;
};

struct measurement {
  std::string name;
  std::vector<double> wall_ms;        // per call: sync -> start -> call -> sync(result) -> stop
  std::vector<double> throughput_ms;  // per batch: (start -> N calls -> barrier -> stop) / N
  std::vector<double> device_ms;      // per execution with device timestamps (sum over a call's events)
  summary wall, throughput, device;
  std::size_t calls_dispatched = 0;   // calls made inside timed windows
  std::size_t calls_captured = 0;     // of those, calls whose every execution had completed with timestamps
                                      // when the window closed
  int result_sync_violations = 0;     // per-result waits that returned early
  int barrier_violations = 0;         // barriers that returned with work still running
  std::vector<std::string> warnings;  // high noise, incomplete capture, sync violations, wall < device, a
                                      // busy machine
  contention machine;                 // what else ran during the timed windows (wall latency, throughput)

  [[nodiscard]] double capture_ratio() const;
  [[nodiscard]] int sync_violations() const { return result_sync_violations + barrier_violations; }
  /// A measurement is valid when every sync waited and every call was captured.
  [[nodiscard]] bool valid() const;
};

/// Measures `target`: warm-up, wall latency per call, throughput per batch, device time per execution.
/// Never throws on a broken sync: the violations are counted and reported in `warnings`.
[[nodiscard]] measurement measure(const bench_target& target, const measure_options& options = {});

}  // namespace kbench
