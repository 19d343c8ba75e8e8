// The distributions behind the regression detector, against published tables.

#include <kbench/error.hpp>
#include <kbench/history/distributions.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

namespace kbench::test {
namespace {

using history::normal_cdf;
using history::regularized_incomplete_beta;
using history::student_t_cdf;
using history::student_t_quantile;

TEST(Distributions, NormalCdfMatchesTheTable) {
  EXPECT_DOUBLE_EQ(normal_cdf(0), 0.5);
  EXPECT_NEAR(normal_cdf(-1), 0.158655253931457, 1e-14);
  EXPECT_NEAR(normal_cdf(1.959963984540054), 0.975, 1e-14);
  EXPECT_NEAR(normal_cdf(-6), 9.865876450377e-10, 1e-20);
}

TEST(Distributions, IncompleteBetaClosedForms) {
  for (double x : {0.0, 0.1, 0.37, 0.5, 0.9, 1.0}) {
    EXPECT_NEAR(regularized_incomplete_beta(1, 1, x), x, 1e-14);                       // uniform
    EXPECT_NEAR(regularized_incomplete_beta(3, 1, x), std::pow(x, 3), 1e-14);          // x^a
    EXPECT_NEAR(regularized_incomplete_beta(1, 4, x), 1 - std::pow(1 - x, 4), 1e-14);  // 1 - (1 - x)^b
  }
  EXPECT_NEAR(regularized_incomplete_beta(7.5, 7.5, 0.5), 0.5, 1e-14);  // symmetry
  EXPECT_THROW((void)regularized_incomplete_beta(0, 1, 0.5), kbench::error);
  EXPECT_THROW((void)regularized_incomplete_beta(1, 1, 1.5), kbench::error);
}

TEST(Distributions, StudentTCdfMatchesClosedForms) {
  // df = 1 is the Cauchy distribution: 1/2 + atan(t) / pi.
  for (double t : {-30.0, -2.0, -0.5, 0.0, 0.7, 3.0, 100.0}) {
    EXPECT_NEAR(student_t_cdf(t, 1), 0.5 + std::atan(t) / std::numbers::pi, 1e-13) << t;
  }
  // df = 2: 1/2 + t / (2 sqrt(2 + t^2)).
  for (double t : {-4.0, -1.0, 0.3, 2.5})
    EXPECT_NEAR(student_t_cdf(t, 2), 0.5 + t / (2 * std::sqrt(2 + t * t)), 1e-13);
}

// Two-sided critical values from the standard t table (e.g. NIST/SEMATECH e-Handbook 1.3.6.7.2), to the
// digits printed there.
TEST(Distributions, StudentTQuantilesMatchTheTable) {
  struct row {
    double p, df, t, tolerance;
  };
  for (const row& r : {row{0.975, 1, 12.706204736174698, 1e-9}, row{0.975, 2, 4.302652729749464, 1e-9},
                       row{0.975, 5, 2.570581835636314, 1e-9}, row{0.975, 10, 2.228138851986274, 1e-9},
                       row{0.995, 19, 2.860934606449914, 1e-9}, row{0.95, 30, 1.697260886593222, 1e-9},
                       row{0.9995, 1, 636.6192487687196, 1e-6}, row{0.975, 1000, 1.962339, 1e-6},
                       row{0.90, 4, 1.533, 1e-3}, row{0.99, 29, 2.462, 1e-3}, row{0.995, 4, 4.604, 1e-3}}) {
    EXPECT_NEAR(student_t_quantile(r.p, r.df), r.t, r.tolerance) << "p=" << r.p << " df=" << r.df;
    EXPECT_NEAR(student_t_quantile(1 - r.p, r.df), -r.t, r.tolerance) << "symmetry";
  }
  EXPECT_EQ(student_t_quantile(0.5, 7), 0.0);
}

TEST(Distributions, StudentTQuantileInvertsTheCdf) {
  for (double df : {1.0, 3.0, 4.5, 19.0, 200.0}) {
    for (double p : {1e-6, 0.01, 0.2, 0.5, 0.8, 0.995, 1 - 1e-6}) {
      EXPECT_NEAR(student_t_cdf(student_t_quantile(p, df), df), p, 1e-12 * std::max(1.0, p / (1 - p)))
          << "df=" << df << " p=" << p;
    }
  }
  EXPECT_THROW((void)student_t_quantile(0, 5), kbench::error);
  EXPECT_THROW((void)student_t_quantile(1, 5), kbench::error);
  EXPECT_THROW((void)student_t_quantile(0.9, 0), kbench::error);
}

TEST(Distributions, StudentTApproachesTheNormal) {
  EXPECT_NEAR(student_t_quantile(0.975, 1e7), 1.959963984540054, 1e-6);
}

}  // namespace
}  // namespace kbench::test
