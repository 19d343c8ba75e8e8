// The regression detector on synthetic series: steps are found, noise is not.

#include "unit/history_test_data.hpp"

#include <kbench/error.hpp>
#include <kbench/history/detector.hpp>

#include <gtest/gtest.h>

namespace kbench::test {
namespace {

using history::detect;
using history::detector_options;
using history::verdict;

TEST(RegressionDetector, FewerThanFivePriorRunsIsInsufficientData) {
  const std::vector<double> values{1, 1.01, 0.99, 1.0, 2.0};
  EXPECT_EQ(detect(values, false).status, verdict::insufficient_data);
  EXPECT_EQ(detect(std::span<const double>(), false).status, verdict::insufficient_data);
  EXPECT_EQ(to_string(verdict::insufficient_data), "insufficient data");
}

TEST(RegressionDetector, AClearTenPercentStepIsFoundWithinTwoRuns) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    // 30 runs at 1 ms with 1% CV, then 10% slower.
    const auto values = lognormal_values(seed, 32, 1.0, 0.01, 30, 1.10);
    const std::span<const double> all(values);
    const auto first = detect(all.first(31), false);
    EXPECT_EQ(first.status, verdict::suspicious_regression)
        << "seed " << seed << ": one run is not yet persistent";
    const auto second = detect(all, false);
    EXPECT_EQ(second.status, verdict::regression) << "seed " << seed;
    EXPECT_NEAR(second.change, 0.10, 0.04);
    EXPECT_EQ(second.baseline_runs, 20u);
    EXPECT_GT(second.newest, second.upper);
    EXPECT_TRUE(second.log_scale);
  }
}

TEST(RegressionDetector, PureNoiseWithFivePercentCvOverSixtyRunsRaisesNoRegression) {
  // Judged after every run, as a nightly job would, on 20 independent series.
  for (std::uint64_t seed = 100; seed < 120; ++seed) {
    const auto values = lognormal_values(seed, 60, 2.5, 0.05);
    const std::span<const double> all(values);
    for (std::size_t n = 1; n <= values.size(); ++n) {
      EXPECT_NE(detect(all.first(n), false).status, verdict::regression) << "seed " << seed << ", run " << n;
    }
  }
}

TEST(RegressionDetector, FasterIsAnImprovementForLatency) {
  const auto values = lognormal_values(7, 27, 1.0, 0.01, 25, 0.8);
  EXPECT_EQ(detect(values, false).status, verdict::improvement);
  EXPECT_EQ(detect(std::span<const double>(values).first(26), false).status, verdict::suspicious_improvement);
}

TEST(RegressionDetector, HigherIsBetterMetricsFlipTheDirection) {
  EXPECT_TRUE(history::higher_is_better("speedup"));
  EXPECT_TRUE(history::higher_is_better("bandwidth_gbps"));
  EXPECT_TRUE(history::higher_is_better("triad_fraction"));
  EXPECT_TRUE(history::higher_is_better("gflops"));
  EXPECT_TRUE(history::higher_is_better("capture_ratio"));
  EXPECT_TRUE(history::higher_is_better("accuracy"));
  EXPECT_FALSE(history::higher_is_better("latency_ms"));
  EXPECT_FALSE(history::higher_is_better("autotune_s"));
  const auto dropped = lognormal_values(8, 27, 3.0, 0.01, 25, 0.85);  // speedup 3x -> 2.55x
  EXPECT_EQ(detect(dropped, true).status, verdict::regression);
  const auto rose = lognormal_values(9, 27, 3.0, 0.01, 25, 1.2);
  EXPECT_EQ(detect(rose, true).status, verdict::improvement);
}

TEST(RegressionDetector, AChangeBelowTheThresholdIsNotARegression) {
  // 0.1% noise makes a 3% step far outside the interval, but it is below the 5% minimum effect.
  const auto values = lognormal_values(10, 27, 1.0, 0.001, 25, 1.03);
  EXPECT_EQ(detect(values, false).status, verdict::ok);
  detector_options strict;
  strict.threshold = 0.02;
  EXPECT_EQ(detect(values, false, strict).status, verdict::regression);
}

TEST(RegressionDetector, ASingleOutlierThatRecoversIsOk) {
  auto values = lognormal_values(11, 30, 1.0, 0.01);
  values[28] *= 1.5;
  EXPECT_EQ(detect(values, false).status, verdict::ok);
}

TEST(RegressionDetector, AccuracyDroppingToZeroUsesTheLinearScale) {
  std::vector<double> values(10, 1.0);
  values[8] = values[9] = 0.0;
  const auto r = detect(values, true);
  EXPECT_FALSE(r.log_scale);
  EXPECT_EQ(r.status, verdict::regression);
  EXPECT_DOUBLE_EQ(r.change, -1.0);
}

TEST(RegressionDetector, TheWindowLimitsTheBaseline) {
  // An old slow era beyond the window does not widen the interval.
  std::vector<double> values = lognormal_values(12, 20, 2.0, 0.01);
  const auto recent = lognormal_values(13, 22, 1.0, 0.01, 20, 1.10);
  values.insert(values.end(), recent.begin(), recent.end());
  detector_options options;
  options.window = 15;
  const auto r = detect(values, false, options);
  EXPECT_EQ(r.baseline_runs, 15u);
  EXPECT_EQ(r.status, verdict::regression);
}

TEST(RegressionDetector, InvalidOptionsThrow) {
  const std::vector<double> values(10, 1.0);
  detector_options bad;
  bad.confidence = 1.0;
  EXPECT_THROW((void)detect(values, false, bad), kbench::error);
  bad = {};
  bad.window = 3;
  EXPECT_THROW((void)detect(values, false, bad), kbench::error);
}

}  // namespace
}  // namespace kbench::test
