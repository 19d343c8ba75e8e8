// The benchmarking primitives (see bench.hpp): every sample uses the synchronized protocol and every wait is
// verified with a status query (sync.hpp).

#include <kbench/bench.hpp>
#include <kbench/host_cache.hpp>
#include <kbench/sync.hpp>

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <limits>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace kbench {
namespace {

using clock_type = std::chrono::steady_clock;

double elapsed_ms(clock_type::time_point start, clock_type::time_point stop) {
  return std::chrono::duration<double, std::milli>(stop - start).count();
}

/// Calls `target` once and syncs on its own result (warm-up). Returns 1 when the sync returned early, after
/// draining the work so that it cannot run into the next sample.
int synced_call(const bench_target& target) {
  const call_result r = target.call();
  if (sync_and_check(r) > 0) {
    drain({&r, 1});
    return 1;
  }
  return 0;
}

void flush_before_sample(const bench_target& target, std::size_t flush_bytes) {
  if (target.flush_cache) {
    target.flush_cache();
  } else {
    flush_host_cache(flush_bytes);
  }
}

/// Half the width of the 99% CI of the median relative to the median [fraction] (nvbench's noise criterion).
double relative_noise(std::span<const double> samples) {
  const summary s = summarize(samples);
  const double half_width = (s.median_ci_high - s.median_ci_low) / 2;
  if (s.median <= 0) {
    return half_width == 0 ? 0 : std::numeric_limits<double>::infinity();
  }
  return half_width / s.median;
}

}  // namespace

double bench_result::value(return_mode mode) const {
  switch (mode) {
    case return_mode::min:
      return stats.min;
    case return_mode::max:
      return stats.max;
    case return_mode::mean:
      return stats.mean;
    case return_mode::median:
    case return_mode::all:
      return stats.median;
  }
  return stats.median;
}

std::vector<double> bench_result::quantiles(std::span<const double> qs) const {
  std::vector<double> out;
  out.reserve(qs.size());
  for (double q : qs) {
    out.push_back(quantile(samples_ms, q));
  }
  return out;
}

double time_one_call(const bench_target& target, int& violations) {
  // Untimed: whatever ran before (another target, a cache flush) must not overlap this sample.
  if (target.barrier) {
    target.barrier();
  }
  const auto start = clock_type::now();
  const call_result r = target.call();
  const int incomplete = sync_and_check(r);
  const auto stop = clock_type::now();
  // `r` (and its outputs) are released only after the stop: teardown stays outside the window.
  if (incomplete > 0) {
    ++violations;  // one early-returning sync, however many of its events were still running
    drain({&r, 1});
  }
  return elapsed_ms(start, stop);
}

int compute_repeat(const bench_target& target, double target_ms, int min_repeat, int max_repeat) {
  constexpr int estimate_calls = 5;
  // Calls this slow get min_repeat whatever the rest of the estimate says (unless those were much faster), so
  // the estimate stops after two of them: three calls of bmm [8,512,512,512] on PoCL are 1-2 s per config.
  // Two, not one: a first call may still pay for a program build or page faults.
  constexpr int slow_calls_enough = 2;
  const double slow_call_ms = target_ms / std::max(min_repeat, 1);
  // Each estimate runs until the work has really finished (drained by status polling), not until the sync
  // returned: a sync that returns early would make every call look free and ask for max_repeat calls of a
  // kernel that takes seconds. With a correct sync the drain finds everything complete and adds nothing.
  // Violations are counted by the measurement proper, not here.
  double total_ms = 0;
  int calls = 0;
  int slow = 0;
  while (calls < estimate_calls && slow < slow_calls_enough) {
    if (target.barrier) {
      target.barrier();
    }
    const auto start = clock_type::now();
    const call_result r = target.call();
    (void)sync_and_check(r);
    drain({&r, 1});
    const double call_ms = elapsed_ms(start, clock_type::now());
    total_ms += call_ms;
    ++calls;
    if (call_ms >= slow_call_ms) ++slow;
  }
  const double estimate_ms = total_ms / calls;
  if (!(estimate_ms > 0)) {
    return max_repeat;
  }
  // Clamped as a double first: a tiny estimate would overflow int.
  const double repeat = std::clamp(std::floor(target_ms / estimate_ms), static_cast<double>(min_repeat),
                                   static_cast<double>(max_repeat));
  return static_cast<int>(repeat);
}

bench_result do_bench(const bench_target& target, const bench_options& options) {
  bench_result result;
  result.name = target.name;

  // Warm-up: at least one call, then until the budget is spent; each synced on its own result.
  const auto warmup_start = clock_type::now();
  do {
    result.sync_violations += synced_call(target);
  } while (elapsed_ms(warmup_start, clock_type::now()) < options.warmup_ms);

  const std::size_t flush_bytes = options.flush_bytes != 0 ? options.flush_bytes : last_level_flush_bytes();
  auto take_sample = [&] {
    if (options.flush_cache) {
      flush_before_sample(target, flush_bytes);
    }
    result.samples_ms.push_back(time_one_call(target, result.sync_violations));
  };

  if (!options.stop) {
    const int repeat = compute_repeat(target, options.rep_ms);
    result.samples_ms.reserve(static_cast<std::size_t>(repeat));
    for (int i = 0; i < repeat; ++i) {
      take_sample();
    }
  } else {
    const noise_stop& stop = *options.stop;
    const auto start = clock_type::now();
    // The noise criterion sorts all samples, so it is checked at geometrically spaced counts (every ~5 %),
    // which keeps the whole loop O(n log n) even for a timeout of millions of fast samples.
    std::size_t next_check = std::max<std::size_t>(stop.min_samples, 1);
    for (;;) {
      take_sample();
      const double elapsed = elapsed_ms(start, clock_type::now());
      const std::size_t count = result.samples_ms.size();
      if (count >= next_check && elapsed >= stop.min_time_ms) {
        if (relative_noise(result.samples_ms) <= stop.max_relative_noise) {
          result.stopped_by_noise = true;
          break;
        }
        next_check = count + std::max<std::size_t>(1, count / 20);
      }
      if (elapsed >= stop.timeout_ms) {
        break;
      }
    }
  }
  result.stats = summarize(result.samples_ms);
  return result;
}

std::vector<bench_result> interleaved_bench(std::span<const bench_target> targets, int repeat, int warmup,
                                            int calls_per_turn) {
  std::vector<bench_result> results(targets.size());
  for (std::size_t t = 0; t < targets.size(); ++t) {
    results[t].name = targets[t].name;
    results[t].samples_ms.reserve(static_cast<std::size_t>(std::max(repeat, 0)));
  }
  for (int round = 0; round < warmup; ++round) {
    for (std::size_t t = 0; t < targets.size(); ++t) {
      results[t].sync_violations += synced_call(targets[t]);
    }
  }
  const int turn = std::max(calls_per_turn, 1);
  const bool rewarm = turn > 1 && targets.size() > 1;  // see the header: the first call after a switch
  for (int done = 0; done < repeat; done += turn) {
    const int calls = std::min(turn, repeat - done);
    for (std::size_t t = 0; t < targets.size(); ++t) {
      if (rewarm) results[t].sync_violations += synced_call(targets[t]);
      for (int c = 0; c < calls; ++c) {
        results[t].samples_ms.push_back(time_one_call(targets[t], results[t].sync_violations));
      }
    }
  }
  for (bench_result& r : results) {
    r.stats = summarize(r.samples_ms);
  }
  return results;
}

int interleaved_calls_per_turn(double slowest_ms, int repeat) {
  constexpr int min_calls = 4;    // timed calls per turn at least
  constexpr double turn_ms = 20;  // [ms] how long a turn lasts at least, within 4 turns per target
  constexpr int min_turns = 4;    // turns per target at least
  if (repeat < 2 * min_calls) return 1;
  if (!(slowest_ms > 0)) return min_calls;
  const double fill = std::min(turn_ms / slowest_ms, static_cast<double>(repeat / min_turns));
  return std::max(min_calls, static_cast<int>(fill));
}

}  // namespace kbench
