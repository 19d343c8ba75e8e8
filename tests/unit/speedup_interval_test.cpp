// shape_result::speedup_interval: the speedup's range when each median ranges over its 99% confidence
// interval, and the verdict it gives (faster, same within noise, slower).

#include <kbench/stats.hpp>
#include <kbench/suite/shape_result.hpp>

#include <gtest/gtest.h>

#include <vector>

namespace kbench::suite {
namespace {

/// n latencies [ms] spread evenly over [center - spread, center + spread], in an order that is not sorted.
std::vector<double> latencies(double center, double spread, int n) {
  std::vector<double> v;
  for (int i = 0; i < n; ++i) {
    const int j = (i * 7) % n;  // 7 and n coprime below: every position once
    v.push_back(center - spread + 2 * spread * j / (n - 1));
  }
  return v;
}

shape_result timed(std::vector<double> kbench_ms, std::vector<double> torch_ms) {
  shape_result r;
  r.kbench = impl_result{};
  r.kbench->impl = "kbench";
  r.kbench->latency_ms = std::move(kbench_ms);
  r.torch = impl_result{};
  r.torch->impl = "torch";
  r.torch->latency_ms = std::move(torch_ms);
  return r;
}

TEST(SpeedupInterval, IsTheRatioOfTheMediansBetweenTheEndsOfTheirConfidenceIntervals) {
  const auto r = timed(latencies(1.0, 0.1, 101), latencies(2.0, 0.4, 101));
  const auto s = r.speedup_interval();
  ASSERT_TRUE(s.has_value());
  const summary k = summarize(r.kbench->latency_ms);
  const summary t = summarize(r.torch->latency_ms);
  EXPECT_DOUBLE_EQ(s->ratio, t.median / k.median);
  EXPECT_DOUBLE_EQ(s->ratio, *r.speedup());
  EXPECT_DOUBLE_EQ(s->low, t.median_ci_low / k.median_ci_high);
  EXPECT_DOUBLE_EQ(s->high, t.median_ci_high / k.median_ci_low);
  EXPECT_LT(s->low, s->ratio);
  EXPECT_GT(s->high, s->ratio);
  EXPECT_GT(s->low, 1.0);
  EXPECT_EQ(s->verdict(), "faster");
}

TEST(SpeedupInterval, ASpeedupBelowTheMinimumEffectIsTheSame) {
  // 1.01x with tight spreads: the interval excludes 1, but 1% is below the default 2%.
  const auto r = timed(latencies(1.0, 0.001, 201), latencies(1.01, 0.001, 201));
  const auto s = r.speedup_interval();
  ASSERT_TRUE(s.has_value());
  EXPECT_GT(s->low, 1.0);
  EXPECT_EQ(s->verdict(), "same");
  EXPECT_EQ(r.speedup_interval(0.005)->verdict(), "faster");
  const auto slower = timed(latencies(1.01, 0.001, 201), latencies(1.0, 0.001, 201));
  EXPECT_EQ(slower.speedup_interval()->verdict(), "same");
  EXPECT_EQ(slower.speedup_interval(0.005)->verdict(), "slower");
}

TEST(SpeedupInterval, AShapeTimedOnABusyMachineIsUnreliable) {
  auto r = timed(latencies(1.0, 0.1, 101), latencies(2.0, 0.4, 101));
  r.machine = contention{};
  r.machine->measured = true;
  r.machine->quiet = false;
  r.machine->reason = "other processes used 48% of the 2 CPUs";
  EXPECT_EQ(r.speedup_interval()->verdict(), "unreliable");
  r.machine->quiet = true;
  EXPECT_EQ(r.speedup_interval()->verdict(), "faster");
}

TEST(SpeedupInterval, TheSameDistributionIsNotToldApart) {
  // 0.97x by the medians, but both spread +-20%: the interval holds 1.
  const auto s = timed(latencies(1.03, 0.2, 200), latencies(1.0, 0.2, 200)).speedup_interval();
  ASSERT_TRUE(s.has_value());
  EXPECT_LT(s->ratio, 1.0);
  EXPECT_LT(s->low, 1.0);
  EXPECT_GT(s->high, 1.0);
  EXPECT_EQ(s->verdict(), "same");
}

TEST(SpeedupInterval, ASlowerKernelIsCalledSlower) {
  const auto s = timed(latencies(1.5, 0.05, 60), latencies(1.0, 0.05, 60)).speedup_interval();
  ASSERT_TRUE(s.has_value());
  EXPECT_LT(s->high, 1.0);
  EXPECT_EQ(s->verdict(), "slower");
}

TEST(SpeedupInterval, FewSamplesGetTheWidestInterval) {
  // 3 samples each: no order statistic reaches 99%, so each median ranges over min..max.
  const auto s = timed({1.0, 1.1, 1.2}, {1.15, 1.25, 1.35}).speedup_interval();
  ASSERT_TRUE(s.has_value());
  EXPECT_DOUBLE_EQ(s->low, 1.15 / 1.2);
  EXPECT_DOUBLE_EQ(s->high, 1.35 / 1.0);
  EXPECT_EQ(s->verdict(), "same");
}

TEST(SpeedupInterval, NeedsBothImplementationsTimed) {
  shape_result r = timed({1.0, 1.0}, {});
  EXPECT_FALSE(r.speedup_interval().has_value());
  r.torch.reset();
  EXPECT_FALSE(r.speedup_interval().has_value());
}

}  // namespace
}  // namespace kbench::suite
