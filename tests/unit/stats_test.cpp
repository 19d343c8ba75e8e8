// Statistics against hand-computed values.

#include <kbench/error.hpp>
#include <kbench/stats.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

namespace kbench {
namespace {

std::vector<double> one_to(int n) {
  std::vector<double> v(static_cast<std::size_t>(n));
  std::iota(v.begin(), v.end(), 1.0);
  return v;
}

TEST(Stats, SummaryOfSmallSetMatchesHandComputation) {
  // Sorted: 2 4 4 4 5 5 7 9 (n = 8), given unsorted.
  //   mean   = 40 / 8 = 5
  //   stdev  = sqrt(((2-5)^2 + 3 (4-5)^2 + 2 (5-5)^2 + (7-5)^2 + (9-5)^2) / 7) = sqrt(32 / 7)
  //   = 2.138089935... median = (x[3] + x[4]) / 2 = (4 + 5) / 2 = 4.5   (0-based) q1: h = 7 * 0.25 = 1.75 ->
  //   x[1] + 0.75 (x[2] - x[1]) = 4 + 0.75 * 0 = 4 q3: h = 7 * 0.75 = 5.25 -> x[5] + 0.25 (x[6] - x[5]) = 5 +
  //   0.25 * 2 = 5.5;  iqr = 1.5 cv = 2.138089935 / 5 = 0.427617987... CI: binomial(8, 0.5): P(X < 1) = 1/256
  //   = 0.0039 <= 0.005, P(X < 2) = 9/256 = 0.035 > 0.005 -> k = 1,
  //       [x_(1), x_(8)] = [2, 9]
  const std::vector<double> samples{9, 4, 2, 5, 4, 7, 4, 5};
  const summary s = summarize(samples);
  EXPECT_EQ(s.count, 8u);
  EXPECT_DOUBLE_EQ(s.min, 2);
  EXPECT_DOUBLE_EQ(s.max, 9);
  EXPECT_DOUBLE_EQ(s.mean, 5);
  EXPECT_NEAR(s.stdev, std::sqrt(32.0 / 7.0), 1e-12);
  EXPECT_NEAR(s.stdev, 2.138089935299395, 1e-12);
  EXPECT_DOUBLE_EQ(s.median, 4.5);
  EXPECT_DOUBLE_EQ(s.q1, 4);
  EXPECT_DOUBLE_EQ(s.q3, 5.5);
  EXPECT_DOUBLE_EQ(s.iqr, 1.5);
  EXPECT_NEAR(s.cv, 0.427617987059879, 1e-12);
  EXPECT_DOUBLE_EQ(s.median_ci_low, 2);
  EXPECT_DOUBLE_EQ(s.median_ci_high, 9);
}

TEST(Stats, SummaryOfOneToTwenty) {
  // 1..20: mean = median = 10.5; sum of squared deviations = n (n^2 - 1) / 12 = 20 * 399 / 12 = 665,
  //   stdev = sqrt(665 / 19) = sqrt(35);
  //   q1: h = 19 * 0.25 = 4.75 -> 5 + 0.75 * (6 - 5) = 5.75; q3: h = 14.25 -> 15 + 0.25 = 15.25; iqr = 9.5
  //   CI: binomial(20, 0.5), 2^20 = 1048576; P(X <= 3) = (1 + 20 + 190 + 1140) / 2^20 = 1351 / 2^20 = 0.00129
  //       <= 0.005; P(X <= 4) = (1351 + 4845) / 2^20 = 0.00591 > 0.005 -> largest k with P(X < k) <= 0.005
  //       is k = 4: [x_(4), x_(17)] = [4, 17] (the textbook 99% ranks for n = 20)
  const summary s = summarize(one_to(20));
  EXPECT_EQ(s.count, 20u);
  EXPECT_DOUBLE_EQ(s.mean, 10.5);
  EXPECT_DOUBLE_EQ(s.median, 10.5);
  EXPECT_NEAR(s.stdev, std::sqrt(35.0), 1e-12);
  EXPECT_DOUBLE_EQ(s.q1, 5.75);
  EXPECT_DOUBLE_EQ(s.q3, 15.25);
  EXPECT_DOUBLE_EQ(s.iqr, 9.5);
  EXPECT_DOUBLE_EQ(s.median_ci_low, 4);
  EXPECT_DOUBLE_EQ(s.median_ci_high, 17);
}

TEST(Stats, MedianConfidenceIntervalRanks) {
  // Ranks from the binomial(n, 0.5) CDF (largest k with P(X < k) <= 0.005; interval [x_(k), x_(n-k+1)]):
  //   n = 50:  P(X <= 15) = 0.00330, P(X <= 16) = 0.00767 -> k = 16: [16, 35]
  //   n = 100: P(X <= 36) = 0.00332, P(X <= 37) = 0.00602 -> k = 37: [37, 64]
  const summary s50 = summarize(one_to(50));
  EXPECT_DOUBLE_EQ(s50.median_ci_low, 16);
  EXPECT_DOUBLE_EQ(s50.median_ci_high, 35);
  const summary s100 = summarize(one_to(100));
  EXPECT_DOUBLE_EQ(s100.median_ci_low, 37);
  EXPECT_DOUBLE_EQ(s100.median_ci_high, 64);
}

TEST(Stats, TooFewSamplesForNinetyNinePercentGiveMinAndMax) {
  // n = 7: P(X < 1) = 1/128 = 0.0078 > 0.005, so no order statistic reaches 99%: [min, max].
  const summary s = summarize(std::vector<double>{3, 1, 7, 5, 2, 6, 4});
  EXPECT_DOUBLE_EQ(s.median_ci_low, 1);
  EXPECT_DOUBLE_EQ(s.median_ci_high, 7);
  EXPECT_DOUBLE_EQ(s.median, 4);
}

TEST(Stats, SingleSampleAndEmptySet) {
  const summary one = summarize(std::vector<double>{2.5});
  EXPECT_EQ(one.count, 1u);
  EXPECT_DOUBLE_EQ(one.min, 2.5);
  EXPECT_DOUBLE_EQ(one.max, 2.5);
  EXPECT_DOUBLE_EQ(one.median, 2.5);
  EXPECT_DOUBLE_EQ(one.stdev, 0);  // n - 1 = 0: defined as 0, not NaN
  EXPECT_DOUBLE_EQ(one.cv, 0);
  EXPECT_DOUBLE_EQ(one.median_ci_low, 2.5);
  EXPECT_DOUBLE_EQ(one.median_ci_high, 2.5);

  const summary none = summarize(std::vector<double>{});
  EXPECT_EQ(none.count, 0u);
  EXPECT_DOUBLE_EQ(none.mean, 0);
  EXPECT_DOUBLE_EQ(none.median, 0);
}

TEST(Stats, ConstantSamplesHaveZeroSpread) {
  const summary s = summarize(std::vector<double>(30, 0.25));
  EXPECT_DOUBLE_EQ(s.stdev, 0);
  EXPECT_DOUBLE_EQ(s.iqr, 0);
  EXPECT_DOUBLE_EQ(s.cv, 0);
  EXPECT_DOUBLE_EQ(s.median_ci_low, 0.25);
  EXPECT_DOUBLE_EQ(s.median_ci_high, 0.25);
}

TEST(Stats, RelativeSpreadIsHalfTheInterquartileRangeOverTheMedian) {
  const summary s = summarize(one_to(20));  // q1 5.75, q3 15.25, median 10.5
  EXPECT_DOUBLE_EQ(relative_spread(s), 9.5 / 21);
  EXPECT_DOUBLE_EQ(relative_spread(summarize(std::vector<double>{0, 0, 0})), 0);
}

// The case it is printed for: 4,000 calls of about 5 us, one preempted for 1 ms. The cv says 300%; the spread
// still describes the 3,999 others.
TEST(Stats, OnePreemptedSampleBarelyMovesTheRelativeSpread) {
  std::vector<double> samples;
  for (int i = 0; i < 4000; ++i) samples.push_back(0.005 * (1 + 0.02 * ((i % 11) - 5) / 5.0));
  const double quiet = relative_spread(summarize(samples));
  samples[1234] = 1.0;
  const summary noisy = summarize(samples);
  EXPECT_GT(noisy.cv, 2.5);
  EXPECT_NEAR(relative_spread(noisy), quiet, 1e-4);
  EXPECT_LT(relative_spread(noisy), 0.02);
}

TEST(Quantile, LinearInterpolationLikeNumpy) {
  // numpy.quantile([10, 20, 30, 40], q): h = 3 q
  //   q = 0.1 -> h = 0.3 -> 10 + 0.3 * 10 = 13;  q = 0.5 -> h = 1.5 -> 25;  q = 0.9 -> h = 2.7 -> 37
  const std::vector<double> v{40, 10, 30, 20};
  EXPECT_DOUBLE_EQ(quantile(v, 0.1), 13);
  EXPECT_DOUBLE_EQ(quantile(v, 0.5), 25);
  EXPECT_DOUBLE_EQ(quantile(v, 0.9), 37);
}

TEST(Quantile, EdgeCases) {
  const std::vector<double> v{5, 1, 3};
  EXPECT_DOUBLE_EQ(quantile(v, 0), 1);  // q = 0 is the minimum
  EXPECT_DOUBLE_EQ(quantile(v, 1), 5);  // q = 1 is the maximum, no read past the end
  EXPECT_DOUBLE_EQ(quantile(v, 0.5), 3);
  const std::vector<double> one{7};
  EXPECT_DOUBLE_EQ(quantile(one, 0), 7);
  EXPECT_DOUBLE_EQ(quantile(one, 0.37), 7);
  EXPECT_DOUBLE_EQ(quantile(one, 1), 7);
}

TEST(Quantile, RejectsEmptySetAndOutOfRangeQ) {
  const std::vector<double> v{1, 2};
  EXPECT_THROW((void)quantile(std::vector<double>{}, 0.5), error);
  EXPECT_THROW((void)quantile(v, -0.01), error);
  EXPECT_THROW((void)quantile(v, 1.01), error);
  EXPECT_THROW((void)quantile(v, std::numeric_limits<double>::quiet_NaN()), error);
}

}  // namespace
}  // namespace kbench
