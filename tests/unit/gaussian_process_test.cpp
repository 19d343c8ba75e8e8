// The Gaussian-process posterior the Bayesian strategies share (tune/strategies/gaussian_process.hpp),
// checked against the textbook formulas computed directly: mean k*^T K^-1 y and explained variance
// k*^T K^-1 k*, with K the observations' covariance plus noise.

#include "tune/strategies/gaussian_process.hpp"

#include <kbench/error.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace kbench::tune::detail {
namespace {

constexpr double noise = 1e-3;
constexpr double length = 0.3;

// A 1-D pool: candidate i sits at i / 10.
double kernel(std::size_t a, std::size_t b) {
  const double delta = (static_cast<double>(a) - static_cast<double>(b)) / 10.0 / length;
  return matern52(delta * delta);
}

std::vector<double> column_of(std::size_t at, std::size_t pool) {
  std::vector<double> column(pool);
  for (std::size_t i = 0; i < pool; ++i) column[i] = kernel(i, at);
  return column;
}

// Solves the dense system a x = b by Gaussian elimination (a reference independent of the Cholesky code).
std::vector<double> solve_dense(std::vector<std::vector<double>> a, std::vector<double> b) {
  const std::size_t n = b.size();
  for (std::size_t c = 0; c < n; ++c) {
    for (std::size_t r = c + 1; r < n; ++r) {
      const double f = a[r][c] / a[c][c];
      for (std::size_t k = c; k < n; ++k) a[r][k] -= f * a[c][k];
      b[r] -= f * b[c];
    }
  }
  std::vector<double> x(n);
  for (std::size_t r = n; r-- > 0;) {
    double s = b[r];
    for (std::size_t k = r + 1; k < n; ++k) s -= a[r][k] * x[k];
    x[r] = s / a[r][r];
  }
  return x;
}

struct observed_pool {
  std::vector<std::size_t> at = {2, 7, 11, 15, 18};
  std::vector<double> y = {0.5, -1.0, 1.5, 0.2, -0.7};
  std::size_t pool = 25;
};

pool_posterior incremental(const observed_pool& o) {
  pool_posterior posterior;
  for (std::size_t i = 0; i < o.pool; ++i) posterior.add_candidate({});
  for (const std::size_t at : o.at) posterior.add_observation(at, 1.0 + noise, column_of(at, o.pool));
  return posterior;
}

TEST(GaussianProcess, PosteriorMatchesTheDirectFormulas) {
  const observed_pool o;
  const pool_posterior posterior = incremental(o);
  const std::size_t n = o.at.size();
  std::vector<std::vector<double>> k(n, std::vector<double>(n));
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) k[i][j] = kernel(o.at[i], o.at[j]) + (i == j ? noise : 0.0);
  }
  const std::vector<double> alpha = solve_dense(k, o.y);
  std::vector<std::size_t> all(o.pool);
  for (std::size_t i = 0; i < o.pool; ++i) all[i] = i;
  const std::vector<double> mean = posterior.means(all, posterior.whiten(o.y));
  for (std::size_t i = 0; i < o.pool; ++i) {
    std::vector<double> kstar(n);
    double expected_mean = 0;
    for (std::size_t j = 0; j < n; ++j) {
      kstar[j] = kernel(i, o.at[j]);
      expected_mean += kstar[j] * alpha[j];
    }
    const std::vector<double> kinv_kstar = solve_dense(k, kstar);
    double expected_explained = 0;
    for (std::size_t j = 0; j < n; ++j) expected_explained += kstar[j] * kinv_kstar[j];
    EXPECT_NEAR(mean[i], expected_mean, 1e-9) << "candidate " << i;
    EXPECT_NEAR(posterior.explained(i), expected_explained, 1e-9) << "candidate " << i;
    EXPECT_LE(posterior.explained(i), 1.0) << "candidate " << i;
  }
  // Observed points are nearly interpolated (the noise is small), and nearly all their variance explained.
  for (std::size_t j = 0; j < n; ++j) {
    EXPECT_NEAR(mean[o.at[j]], o.y[j], 0.02);
    EXPECT_GT(posterior.explained(o.at[j]), 0.99);
  }
}

TEST(GaussianProcess, RebuildAndLateCandidatesGiveTheIncrementalNumbers) {
  const observed_pool o;
  const pool_posterior reference = incremental(o);

  // The last five candidates (none observed) join after the observations.
  pool_posterior late;
  for (std::size_t i = 0; i < o.pool - 5; ++i) late.add_candidate({});
  for (const std::size_t at : o.at) {
    std::vector<double> column = column_of(at, o.pool);
    column.resize(o.pool - 5);
    late.add_observation(at, 1.0 + noise, std::move(column));
  }
  for (std::size_t i = o.pool - 5; i < o.pool; ++i) {
    std::vector<double> to_observations;
    for (const std::size_t at : o.at) to_observations.push_back(kernel(i, at));
    late.add_candidate(to_observations);
  }

  // A rebuild with another kernel, then back: the same posterior again.
  pool_posterior rebuilt = incremental(o);
  rebuilt.rebuild(2.0, [&](std::size_t at, std::span<double> column) {
    for (std::size_t i = 0; i < column.size(); ++i) column[i] = 0.5 * kernel(i, at);
  });
  rebuilt.rebuild(1.0 + noise, [&](std::size_t at, std::span<double> column) {
    for (std::size_t i = 0; i < column.size(); ++i) column[i] = kernel(i, at);
  });

  std::vector<std::size_t> all(o.pool);
  for (std::size_t i = 0; i < o.pool; ++i) all[i] = i;
  const std::vector<double> expected = reference.means(all, reference.whiten(o.y));
  const std::vector<double> from_late = late.means(all, late.whiten(o.y));
  const std::vector<double> from_rebuilt = rebuilt.means(all, rebuilt.whiten(o.y));
  for (std::size_t i = 0; i < o.pool; ++i) {
    EXPECT_NEAR(from_late[i], expected[i], 1e-12) << "candidate " << i;
    EXPECT_NEAR(from_rebuilt[i], expected[i], 1e-9) << "candidate " << i;
    EXPECT_NEAR(late.explained(i), reference.explained(i), 1e-12) << "candidate " << i;
    EXPECT_NEAR(rebuilt.explained(i), reference.explained(i), 1e-9) << "candidate " << i;
  }
}

TEST(GaussianProcess, RepeatedObservationsWithoutNoiseStayFinite) {
  // The same candidate observed three times with no noise: K is singular, so the pivots are clamped
  // (adding) and the rebuild falls back from Eigen's factorization to the clamped one.
  const std::size_t pool = 8;
  pool_posterior posterior;
  for (std::size_t i = 0; i < pool; ++i) posterior.add_candidate({});
  for (int r = 0; r < 3; ++r) posterior.add_observation(3, 1.0, column_of(3, pool));
  const auto check = [&] {
    const std::vector<double> beta = posterior.whiten(std::vector<double>{1.0, 1.0, 1.0});
    std::vector<std::size_t> all(pool);
    for (std::size_t i = 0; i < pool; ++i) all[i] = i;
    for (const double m : posterior.means(all, beta)) EXPECT_TRUE(std::isfinite(m));
    for (std::size_t i = 0; i < pool; ++i) EXPECT_TRUE(std::isfinite(posterior.explained(i)));
  };
  check();
  EXPECT_THROW(posterior.add_observation(pool, 1.0, column_of(3, pool)), error);
  posterior.rebuild(1.0, [&](std::size_t at, std::span<double> column) {
    for (std::size_t i = 0; i < column.size(); ++i) column[i] = kernel(i, at);
  });
  check();
}

TEST(GaussianProcess, StandardizeGivesMeanZeroAndUnitSpread) {
  std::vector<double> values = {1.0, 2.0, 3.0, 10.0};
  standardize(values);
  double mean = 0;
  double square = 0;
  for (const double v : values) {
    mean += v;
    square += v * v;
  }
  EXPECT_NEAR(mean / 4, 0.0, 1e-12);
  EXPECT_NEAR(square / 4, 1.0, 1e-12);
  std::vector<double> equal = {5.0, 5.0};
  standardize(equal);
  EXPECT_EQ(equal, (std::vector<double>{0.0, 0.0}));
}

}  // namespace
}  // namespace kbench::tune::detail
