// The three measures of one implementation with the capture and sync checks beside them (see measure.hpp and
// docs/measurement.md).

#include <kbench/bench.hpp>
#include <kbench/host_cache.hpp>
#include <kbench/measure.hpp>
#include <kbench/sync.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <vector>

namespace kbench {
namespace {

using clock_type = std::chrono::steady_clock;

double elapsed_ms(clock_type::time_point start, clock_type::time_point stop) {
  return std::chrono::duration<double, std::milli>(stop - start).count();
}

// Thresholds of the high-noise warning [fractions]. The spread is half the interquartile range over the
// median, not the coefficient of variation: one preempted sample of 1 ms among 4,000 of 5 us gives a cv of
// about 300% while the median is known to 0.2%. 0.07 is what a cv of 0.10 gives for normal samples.
constexpr double max_quiet_spread = 0.07;
constexpr double max_quiet_ci_width = 0.05;  // width of the 99% CI of the median relative to the median

void add_warnings(measurement& m, int result_syncs, int barriers) {
  if (m.result_sync_violations > 0) {
    m.warnings.push_back(
        fmt::format("{} of {} result syncs returned before the work finished: timings are invalid",
                    m.result_sync_violations, result_syncs));
  }
  if (m.barrier_violations > 0) {
    m.warnings.push_back(
        fmt::format("{} of {} barriers returned with device work still running: throughput is invalid",
                    m.barrier_violations, barriers));
  }
  if (m.calls_captured < m.calls_dispatched) {
    m.warnings.push_back(fmt::format("capture {}/{}: the timed window missed device work", m.calls_captured,
                                     m.calls_dispatched));
  }
  if (m.wall.count > 0 && m.device.count > 0 && m.wall.median < m.device.median) {
    m.warnings.push_back(fmt::format(
        "wall latency below device time (median {:.4g} ms < {:.4g} ms): synchronization is broken",
        m.wall.median, m.device.median));
  }
  // Pipelined calls far slower than synchronized ones: on a host backend the dispatching thread competes with
  // the kernel's threads, or the phases ran under different conditions; the two figures do not describe one
  // kernel (suite/shape_result.hpp: measures_disagreement, the same rule for `kbench run`).
  if (m.wall.count > 0 && m.throughput.count > 0 && m.throughput.median > 2 * m.wall.median &&
      m.throughput.median - m.wall.median > 0.002) {
    m.warnings.push_back(fmt::format(
        "measures disagree: throughput {:.4g} ms per call is {:.1f}x the wall latency {:.4g} ms (pipelined "
        "calls were slower than synchronized ones)",
        m.throughput.median, m.throughput.median / m.wall.median, m.wall.median));
  }
  if (!m.machine.quiet) {
    m.warnings.push_back(
        fmt::format("the machine was busy while this was timed ({}): the timings describe the "
                    "machine as much as the kernel",
                    m.machine.reason));
  }
  if (m.wall.count > 1 && m.wall.median > 0) {
    const double ci_width = (m.wall.median_ci_high - m.wall.median_ci_low) / m.wall.median;
    const double spread = relative_spread(m.wall);
    if (spread > max_quiet_spread || ci_width > max_quiet_ci_width) {
      m.warnings.push_back(fmt::format(
          "high noise in wall latency: half the interquartile range is {:.1f}% of the median {:.4g} ms, its "
          "99% CI [{:.4g}, {:.4g}] ms spans {:.1f}%",
          100 * spread, m.wall.median, m.wall.median_ci_low, m.wall.median_ci_high, 100 * ci_width));
    }
  }
}

}  // namespace

double measurement::capture_ratio() const {
  return calls_dispatched == 0 ? 0.0
                               : static_cast<double>(calls_captured) / static_cast<double>(calls_dispatched);
}

bool measurement::valid() const {
  return sync_violations() == 0 && calls_dispatched > 0 && calls_captured == calls_dispatched;
}

measurement measure(const bench_target& target, const measure_options& options) {
  measurement m;
  m.name = target.name;
  int result_syncs = 0;
  int barriers = 0;

  // Warm-up: each call synced (and checked) on its own result.
  for (int i = 0; i < options.warmup; ++i) {
    const call_result r = target.call();
    ++result_syncs;
    if (sync_and_check(r) > 0) {
      ++m.result_sync_violations;
      drain({&r, 1});
    }
  }

  const int repeat = options.repeat > 0 ? options.repeat : compute_repeat(target, options.target_ms);
  const contention_probe probe;  // over the timed windows

  // Wall latency: sync -> start -> call -> sync(result) -> stop, one call per sample.
  m.wall_ms.reserve(static_cast<std::size_t>(repeat));
  for (int i = 0; i < repeat; ++i) {
    if (options.flush_cache) {
      if (target.flush_cache) {
        target.flush_cache();
      } else {
        flush_host_cache();
      }
    }
    if (target.barrier) {
      target.barrier();  // untimed: nothing earlier may overlap this sample
    }
    const auto start = clock_type::now();
    const call_result r = target.call();
    const int incomplete = sync_and_check(r);
    const auto stop = clock_type::now();
    m.wall_ms.push_back(elapsed_ms(start, stop));
    ++result_syncs;
    ++m.calls_dispatched;
    // Capture as the window closed: before any drain, which would complete the work after the fact.
    m.calls_captured += count_captured({&r, 1});
    if (incomplete > 0) {
      ++m.result_sync_violations;
      drain({&r, 1});
    }
    // Read after the drain: the device time of the execution is real even when the sync around it was not.
    if (const std::optional<double> device = device_time_ms(r)) {
      m.device_ms.push_back(*device);
    }
  }

  // Throughput: start -> N calls -> barrier -> stop, / N. The results stay alive until after the barrier.
  const int calls = options.throughput_calls > 0 ? options.throughput_calls : repeat;
  m.throughput_ms.reserve(static_cast<std::size_t>(std::max(options.throughput_batches, 0)));
  for (int batch = 0; batch < options.throughput_batches; ++batch) {
    if (target.barrier) {
      target.barrier();  // untimed; the previous window's work has been drained already
    }
    std::vector<call_result> results;
    results.reserve(static_cast<std::size_t>(calls));
    const auto start = clock_type::now();
    for (int i = 0; i < calls; ++i) {
      results.push_back(target.call());
    }
    const int incomplete = barrier_and_check(target, results);
    const auto stop = clock_type::now();
    m.throughput_ms.push_back(elapsed_ms(start, stop) / calls);
    ++barriers;
    m.calls_dispatched += results.size();
    m.calls_captured += count_captured(results);  // what the window saw, e.g. 90 of 1010 with a no-op barrier
    if (incomplete > 0) {
      ++m.barrier_violations;
      drain(results);
    }
  }

  m.machine = probe.finish(options.min_machine_window_s);
  m.wall = summarize(m.wall_ms);
  m.throughput = summarize(m.throughput_ms);
  m.device = summarize(m.device_ms);
  add_warnings(m, result_syncs, barriers);
  return m;
}

}  // namespace kbench
