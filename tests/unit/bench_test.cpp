// compute_repeat clamping, do_bench budgets and noise stop, interleaving order, cache flush. Targets are
// fakes whose per-call time the test controls; the assertions are on counts and flags, never on durations.

#include "fake_async_device.hpp"

#include <kbench/bench.hpp>
#include <kbench/host_cache.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace kbench {
namespace {

using namespace std::chrono_literals;

/// A synchronous target that sleeps `per_call` and counts its calls (no events: nothing to wait for).
bench_target sleeping_target(std::chrono::microseconds per_call, std::shared_ptr<int> calls,
                             std::string name = "sleep") {
  return bench_target{std::move(name),
                      [per_call, calls] {
                        ++*calls;
                        if (per_call.count() > 0) {
                          std::this_thread::sleep_for(per_call);
                        }
                        return call_result{};
                      },
                      {},
                      {}};
}

TEST(ComputeRepeat, FastTargetIsClampedToMax) {
  auto calls = std::make_shared<int>(0);
  const bench_target t = sleeping_target(0us, calls);
  // An empty call takes far less than 100 ms / 1000 = 0.1 ms.
  EXPECT_EQ(compute_repeat(t), 1000);
  EXPECT_EQ(*calls, 5);  // the estimate is 5 calls
  EXPECT_EQ(compute_repeat(t, 100, 10, 50), 50);
}

TEST(ComputeRepeat, SlowTargetIsClampedToMin) {
  auto calls = std::make_shared<int>(0);
  const bench_target t = sleeping_target(5ms, calls);
  // 10 ms / (>= 5 ms per call) <= 2 repeats, below the minimum.
  EXPECT_EQ(compute_repeat(t, 10, 10, 1000), 10);
  EXPECT_EQ(compute_repeat(t, 10, 3, 1000), 3);
  // Two calls of >= 10 / 10 (then 10 / 3) ms each already fix the count at the minimum: the estimate stops.
  EXPECT_EQ(*calls, 4);
}

TEST(ComputeRepeat, OneSlowCallAmongFastOnesDoesNotStopTheEstimate) {
  // Call 1 sleeps 150 ms (as a first call that builds a program might), the others nothing: only one call
  // reaches 500 ms / 5 = 100 ms, so the estimate goes on to its 5 calls, whose mean (about 30 ms) asks for
  // more than the minimum of 5 repeats within 500 ms.
  auto calls = std::make_shared<int>(0);
  const bench_target t{"first_slow",
                       [calls] {
                         if (++*calls == 1) std::this_thread::sleep_for(150ms);
                         return call_result{};
                       },
                       {},
                       {}};
  EXPECT_GT(compute_repeat(t, 500, 5, 1000), 5);
  EXPECT_EQ(*calls, 5);
}

TEST(TimeOneCall, CountsAnEarlySyncOnceAndDrainsIt) {
  // 20 ms: long enough that a preempted test thread still finds the work running after the no-op wait.
  test_double::fake_async_device device(20ms);
  device.set_noop_wait(true);
  const bench_target t = device.target();
  int violations = 0;
  (void)time_one_call(t, violations);
  EXPECT_EQ(violations, 1);
  // Drained: the next sample's barrier-free window starts with an idle stream.
  device.set_noop_wait(false);
  (void)time_one_call(t, violations);
  EXPECT_EQ(violations, 1);
}

TEST(DoBench, WarmsUpAtLeastOnceThenTakesTheComputedRepeat) {
  auto calls = std::make_shared<int>(0);
  bench_options options;
  options.warmup_ms = 0;
  const bench_result r = do_bench(sleeping_target(0us, calls, "empty"), options);
  EXPECT_EQ(r.name, "empty");
  EXPECT_EQ(r.samples_ms.size(), 1000u);  // fast target: compute_repeat's maximum
  EXPECT_GE(*calls, 1 + 5 + 1000);        // >= 1 warm-up, the 5 estimate calls, the samples
  EXPECT_EQ(r.stats.count, 1000u);
  EXPECT_EQ(r.sync_violations, 0);
  EXPECT_FALSE(r.stopped_by_noise);
}

TEST(DoBench, FlushesTheTargetsCacheBeforeEverySample) {
  auto calls = std::make_shared<int>(0);
  auto flushes = std::make_shared<int>(0);
  bench_target t = sleeping_target(0us, calls);
  t.flush_cache = [flushes] { ++*flushes; };
  bench_options options;
  options.warmup_ms = 0;
  options.flush_cache = true;
  options.stop =
      noise_stop{.min_samples = 10, .max_relative_noise = 1e9, .min_time_ms = 0, .timeout_ms = 60'000};
  const bench_result r = do_bench(t, options);
  EXPECT_TRUE(r.stopped_by_noise);
  EXPECT_EQ(r.samples_ms.size(), 10u);  // any noise is acceptable: stops at the minimum sample count
  EXPECT_EQ(*flushes, 10);
}

TEST(DoBench, NoiseStopEndsAtTheTimeoutWhenNoiseStaysHigh) {
  // Alternates 0 and 1 ms calls: the median's confidence interval spans both modes, never within 0 %.
  auto calls = std::make_shared<int>(0);
  const bench_target t{"bimodal",
                       [calls] {
                         if (++*calls % 2 == 0) {
                           std::this_thread::sleep_for(1ms);
                         }
                         return call_result{};
                       },
                       {},
                       {}};
  bench_options options;
  options.warmup_ms = 0;
  options.stop = noise_stop{.min_samples = 4, .max_relative_noise = 0, .min_time_ms = 0, .timeout_ms = 30};
  const bench_result r = do_bench(t, options);
  EXPECT_FALSE(r.stopped_by_noise);
  EXPECT_GT(r.samples_ms.size(), 0u);
  EXPECT_EQ(r.stats.count, r.samples_ms.size());
}

TEST(DoBench, NoiseStopHonoursMinSamples) {
  auto calls = std::make_shared<int>(0);
  bench_options options;
  options.warmup_ms = 0;
  options.stop =
      noise_stop{.min_samples = 25, .max_relative_noise = 1e9, .min_time_ms = 0, .timeout_ms = 60'000};
  const bench_result r = do_bench(sleeping_target(0us, calls), options);
  EXPECT_TRUE(r.stopped_by_noise);
  EXPECT_EQ(r.samples_ms.size(), 25u);
}

TEST(DoBench, CountsViolationsOfABrokenSync) {
  test_double::fake_async_device device(1ms);
  device.set_noop_wait(true);
  bench_options options;
  options.warmup_ms = 0;
  options.stop =
      noise_stop{.min_samples = 5, .max_relative_noise = 1e9, .min_time_ms = 0, .timeout_ms = 60'000};
  const bench_result r = do_bench(device.target(), options);
  EXPECT_GT(r.sync_violations, 0);
}

TEST(BenchResult, ValueAndQuantiles) {
  bench_result r;
  r.samples_ms = {4, 1, 3, 2};
  r.stats = summarize(r.samples_ms);
  EXPECT_DOUBLE_EQ(r.value(return_mode::min), 1);
  EXPECT_DOUBLE_EQ(r.value(return_mode::max), 4);
  EXPECT_DOUBLE_EQ(r.value(return_mode::mean), 2.5);
  EXPECT_DOUBLE_EQ(r.value(return_mode::median), 2.5);
  EXPECT_DOUBLE_EQ(r.value(return_mode::all), 2.5);
  const std::vector<double> qs{0, 0.5, 0.75, 1};
  // numpy linear on 1 2 3 4: h = 3 q -> 1, 2.5, 3.25, 4
  const std::vector<double> expected{1, 2.5, 3.25, 4};
  EXPECT_EQ(r.quantiles(qs), expected);
}

TEST(InterleavedBench, RunsTargetsRoundRobin) {
  auto sequence = std::make_shared<std::string>();
  std::vector<bench_target> targets;
  for (const char* name : {"a", "b", "c"}) {
    targets.push_back(bench_target{name,
                                   [sequence, name] {
                                     *sequence += name;
                                     return call_result{};
                                   },
                                   {},
                                   {}});
  }
  const std::vector<bench_result> results = interleaved_bench(targets, 3, 1);
  EXPECT_EQ(*sequence,
            "abc"
            "abc"
            "abc"
            "abc");  // 1 warm-up round, then 3 rounds
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0].name, "a");
  EXPECT_EQ(results[1].name, "b");
  EXPECT_EQ(results[2].name, "c");
  for (const bench_result& r : results) {
    EXPECT_EQ(r.samples_ms.size(), 3u);
    EXPECT_EQ(r.stats.count, 3u);
    EXPECT_EQ(r.sync_violations, 0);
  }
}

TEST(InterleavedBench, TurnsOfSeveralCallsStartWithAnUntimedCall) {
  auto sequence = std::make_shared<std::string>();
  std::vector<bench_target> targets;
  for (const char* name : {"a", "b"}) {
    targets.push_back(bench_target{name,
                                   [sequence, name] {
                                     *sequence += name;
                                     return call_result{};
                                   },
                                   {},
                                   {}});
  }
  // 5 timed calls each in turns of 2: 1 warm-up round, then turns of (untimed + 2), (untimed + 2), (untimed +
  // 1).
  const std::vector<bench_result> results = interleaved_bench(targets, 5, 1, 2);
  EXPECT_EQ(*sequence,
            "ab"
            "aaabbb"
            "aaabbb"
            "aabb");
  ASSERT_EQ(results.size(), 2u);
  for (const bench_result& r : results) EXPECT_EQ(r.samples_ms.size(), 5u);

  // One target: nothing to switch from, so no untimed calls.
  sequence->clear();
  const std::vector<bench_result> alone = interleaved_bench(std::span(targets).first(1), 5, 0, 2);
  EXPECT_EQ(*sequence, "aaaaa");
  EXPECT_EQ(alone.front().samples_ms.size(), 5u);
}

TEST(InterleavedBench, TurnsLastAbout20MsWithAtLeast4CallsAnd4TurnsPerTarget) {
  EXPECT_EQ(interleaved_calls_per_turn(0.1, 1000), 200);    // 20 ms of 0.1 ms calls
  EXPECT_EQ(interleaved_calls_per_turn(0.001, 1000), 250);  // capped: 4 turns of the 1000 rounds
  EXPECT_EQ(interleaved_calls_per_turn(0.1, 100), 25);
  EXPECT_EQ(interleaved_calls_per_turn(10, 100), 4);  // at least 4 calls in a turn
  EXPECT_EQ(interleaved_calls_per_turn(0, 100), 4);   // unknown time
  EXPECT_EQ(interleaved_calls_per_turn(0.1, 8), 4);
  EXPECT_EQ(interleaved_calls_per_turn(0.1, 7), 1);  // too few rounds for turns: alternate
}

TEST(InterleavedBench, ReportsViolationsPerTarget) {
  test_double::fake_async_device broken(1ms);
  broken.set_noop_wait(true);
  test_double::fake_async_device correct(1ms);
  const std::vector<bench_target> targets{correct.target("correct"), broken.target("broken")};
  const std::vector<bench_result> results = interleaved_bench(targets, 4, 0);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].sync_violations, 0);
  EXPECT_GT(results[1].sync_violations, 0);
}

TEST(HostCache, CountsTheCpusOfASysfsList) {
  EXPECT_EQ(count_cpu_list("0"), 1u);
  EXPECT_EQ(count_cpu_list("0-1"), 2u);
  EXPECT_EQ(count_cpu_list("0-3,8,10-11"), 7u);
  EXPECT_EQ(count_cpu_list(""), 0u);
  EXPECT_EQ(count_cpu_list("0-"), 0u);
  EXPECT_EQ(count_cpu_list("3-1"), 0u);
  EXPECT_EQ(count_cpu_list("a"), 0u);
  EXPECT_EQ(count_cpu_list("0,,1"), 0u);
}

TEST(HostCache, ACacheListedLargerThanItsCpusCanUseIsCapped) {
  constexpr std::size_t mib = std::size_t{1} << 20;
  EXPECT_EQ(cache_share_bytes(480 * mib, 2), 2 * max_cache_bytes_per_cpu);  // a VM listing its host's L3
  EXPECT_EQ(cache_share_bytes(32 * mib, 2), 32 * mib);                      // a Zen 4 CCX seen by 2 cpus
  EXPECT_EQ(cache_share_bytes(480 * mib, 0), 480 * mib);                    // sharing unknown: as listed
}

TEST(HostCache, AFlushWritesTheCacheOrTwiceWhatItsCpusCanUseWhereThatIsLess) {
  constexpr std::size_t mib = std::size_t{1} << 20;
  EXPECT_EQ(cache_flush_bytes(480 * mib, 2), 4 * max_cache_bytes_per_cpu);  // a VM listing its host's L3
  EXPECT_EQ(cache_flush_bytes(32 * mib, 2), 32 * mib);                      // a Zen 4 CCX seen by 2 cpus
  EXPECT_EQ(cache_flush_bytes(32 * mib, 16), 32 * mib);
  EXPECT_EQ(cache_flush_bytes(480 * mib, 0), 480 * mib);  // sharing unknown: as listed
}

TEST(HostCache, LastLevelSizeIsKnownAndFlushRuns) {
  EXPECT_GT(last_level_cache_bytes(), 0u);
  EXPECT_GT(last_level_cache_share_bytes(), 0u);
  EXPECT_LE(last_level_cache_share_bytes(), last_level_cache_bytes());
  EXPECT_GE(last_level_flush_bytes(), last_level_cache_share_bytes());
  EXPECT_LE(last_level_flush_bytes(), last_level_cache_bytes());
  flush_host_cache(std::size_t{1} << 20);
  flush_host_cache(std::size_t{1} << 16);  // smaller after larger reuses the buffer
}

}  // namespace
}  // namespace kbench
