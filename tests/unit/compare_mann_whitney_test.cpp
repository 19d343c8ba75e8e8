// The Mann-Whitney U test against published and hand-computed p-values.

#include <kbench/history/mann_whitney.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace kbench::test {
namespace {

using history::mann_whitney_method;
using history::mann_whitney_u;

TEST(MannWhitney, CompletelySeparatedSmallSamplesGetTheExactP) {
  const std::vector<double> a{1, 2, 3, 4, 5}, b{6, 7, 8, 9, 10};
  const auto r = mann_whitney_u(a, b);
  EXPECT_EQ(r.method, mann_whitney_method::exact);
  EXPECT_EQ(r.u, 0);
  EXPECT_NEAR(r.p_value, 2.0 / 252, 1e-15);  // 2 of the C(10, 5) = 252 rankings are this extreme
  const auto swapped = mann_whitney_u(b, a);
  EXPECT_EQ(swapped.u, 25);
  EXPECT_NEAR(swapped.p_value, r.p_value, 1e-15);
}

TEST(MannWhitney, ExactPFromTheCountsOfUForFourAgainstFour) {
  // U of {1,3,5,7} against {2,4,6,8} is 0+1+2+3 = 6. The counts of U = 0..6 among the 70 rankings are
  // 1,1,2,3,5,5,7 (partitions of u into at most 4 parts of at most 4), so P(U <= 6) = 24/70.
  const std::vector<double> a{1, 3, 5, 7}, b{2, 4, 6, 8};
  const auto r = mann_whitney_u(a, b);
  EXPECT_EQ(r.method, mann_whitney_method::exact);
  EXPECT_EQ(r.u, 6);
  EXPECT_NEAR(r.p_value, 48.0 / 70, 1e-15);
}

TEST(MannWhitney, MatchesRsWilcoxTestExample) {
  // R's ?wilcox.test (Hollander & Wolfe, p. 110): W = 35, p = 0.1272 one-sided ("greater"), exact.
  const std::vector<double> x{0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46};
  const std::vector<double> y{1.15, 0.88, 0.90, 0.74, 1.21};
  const auto r = mann_whitney_u(x, y);
  EXPECT_EQ(r.method, mann_whitney_method::exact);
  EXPECT_EQ(r.u, 35);
  EXPECT_NEAR(r.p_value, 2 * 0.1272, 2e-4);
}

TEST(MannWhitney, NormalApproximationWithTiesMatchesTheHandValue) {
  // a = 1..25, b = 11..35 (n = 25 each, so the normal approximation; 15 values tie across the samples).
  // U counts pairs a_i > b_j, ties 1/2: a = k beats b = 11..k-1, so U = (0 + 1 + ... + 14) + 15/2 = 112.5.
  // Mean 312.5; variance = 625/12 * (51 - 15*6 / (50*49)) = 2654.33673... (15 tie groups of 2: t^3 - t = 6);
  // z = (|112.5 - 312.5| - 0.5) / sqrt(variance) = 199.5 / 51.52025... = 3.8722634...; p = erfc(z / sqrt 2).
  std::vector<double> a, b;
  for (int k = 1; k <= 25; ++k) a.push_back(k);
  for (int k = 11; k <= 35; ++k) b.push_back(k);
  const auto r = mann_whitney_u(a, b);
  EXPECT_EQ(r.method, mann_whitney_method::normal);
  EXPECT_EQ(r.u, 112.5);
  const double variance = 625.0 / 12 * (51 - 15.0 * 6 / (50 * 49));
  const double z = 199.5 / std::sqrt(variance);
  EXPECT_NEAR(z, 3.8722634, 1e-6);
  EXPECT_NEAR(r.p_value, std::erfc(z / std::sqrt(2.0)), 1e-15);
  EXPECT_NEAR(r.p_value, 1.07829e-4, 1e-9);
}

TEST(MannWhitney, NormalApproximationIsCloseToExactForTwentyAgainstTwenty) {
  std::vector<double> a, b;
  for (int k = 0; k < 20; ++k) {
    a.push_back(k * 1.0);
    b.push_back(k * 1.0 + 5.5);  // overlapping, no ties
  }
  const auto exact = mann_whitney_u(a, b);
  ASSERT_EQ(exact.method, mann_whitney_method::exact);
  a.push_back(100);  // 21 values: past the exact limit
  b.push_back(100.5);
  const auto normal = mann_whitney_u(a, b);
  ASSERT_EQ(normal.method, mann_whitney_method::normal);
  EXPECT_GT(exact.p_value, 0.005);
  EXPECT_LT(exact.p_value, 0.05);
  EXPECT_NEAR(normal.p_value, exact.p_value, 0.01);
}

TEST(MannWhitney, TooFewSamplesToReachAlphaSayNotEnoughSamples) {
  // 3 against 3: even complete separation has p = 2/20 = 0.1 > 0.05.
  const auto r = mann_whitney_u(std::vector<double>{1, 2, 3}, std::vector<double>{4, 5, 6});
  EXPECT_EQ(r.method, mann_whitney_method::not_enough_samples);
  EXPECT_EQ(r.p_value, 1);
  EXPECT_EQ(mann_whitney_u(std::vector<double>{1, 2, 3}, std::vector<double>{4, 5, 6}, 0.2).method,
            mann_whitney_method::exact);
  EXPECT_EQ(mann_whitney_u(std::vector<double>{}, std::vector<double>{1, 2}).method,
            mann_whitney_method::not_enough_samples);
  // 4 against 4 can: 2/70 < 0.05.
  EXPECT_EQ(mann_whitney_u(std::vector<double>{1, 2, 3, 4}, std::vector<double>{5, 6, 7, 8}).method,
            mann_whitney_method::exact);
}

TEST(MannWhitney, IdenticalSamplesAreNotDifferent) {
  const std::vector<double> same(12, 0.5);
  const auto r = mann_whitney_u(same, same);
  EXPECT_EQ(r.method, mann_whitney_method::normal);  // all tied
  EXPECT_EQ(r.p_value, 1);
}

}  // namespace
}  // namespace kbench::test
