#include "gaussian_process.hpp"

#include <kbench/error.hpp>

#include <Eigen/Cholesky>
#include <Eigen/Core>

#include <algorithm>
#include <cmath>
#include <utility>

namespace kbench::tune::detail {

namespace {

const double sqrt5 = std::sqrt(5.0);
constexpr double min_squared_pivot = 1e-10;  // clamp for a pivot rounding drives to zero
constexpr double jitter = 1e-6;              // added to a diagonal that does not factor [kernel units]

}  // namespace

double matern52(double r2) {
  const double r = std::sqrt(r2);
  return (1 + sqrt5 * r + 5.0 / 3.0 * r2) * std::exp(-sqrt5 * r);
}

double matern52_slope(double r2) {
  const double r = std::sqrt(r2);
  return 5.0 / 3.0 * (1 + sqrt5 * r) * std::exp(-sqrt5 * r);
}

void standardize(std::vector<double>& values) {
  double mean = 0;
  for (const double v : values) mean += v;
  mean /= static_cast<double>(values.size());
  double variance = 0;
  for (const double v : values) variance += (v - mean) * (v - mean);
  const double sd = std::sqrt(variance / static_cast<double>(values.size()));
  for (double& v : values) v = sd > 0 ? (v - mean) / sd : 0.0;
}

bool lower_cholesky(std::span<const double> a, std::size_t n, std::vector<double>& l) {
  using row_major = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const auto size = static_cast<Eigen::Index>(n);
  const Eigen::LLT<row_major, Eigen::Lower> llt(Eigen::Map<const row_major>(a.data(), size, size));
  if (llt.info() != Eigen::Success) return false;
  l.resize(n * n);
  Eigen::Map<row_major> factor(l.data(), size, size);
  factor = llt.matrixL();
  return (factor.diagonal().array().square() > 1e-12).all();
}

void pool_posterior::add_candidate(std::span<const double> kernel_to_observations) {
  const std::size_t i = candidates();
  double explained = 0;
  for (std::size_t j = 0; j < m_factor.size(); ++j) {
    double s = kernel_to_observations[j];
    for (std::size_t k = 0; k < j; ++k) s -= m_factor[j][k] * m_v[k][i];
    m_v[j].push_back(s / m_factor[j][j]);
    explained += m_v[j][i] * m_v[j][i];
  }
  m_explained.push_back(explained);
}

void pool_posterior::add_observation(std::size_t at, double diagonal, std::vector<double> column) {
  if (at >= candidates() || column.size() != candidates()) {
    throw error(
        "pool_posterior: an observation outside the pool or a kernel column of the wrong size (a bug)");
  }
  m_at.push_back(at);
  m_v.push_back(std::move(column));
  append_factor_row(diagonal);
}

// Row j of L for the newest observation j, whose raw kernel column is m_v[j], which it then turns into v_j.
// The row is L^-1 k(earlier observations, x_j): the earlier v's at the observation's pool position.
void pool_posterior::append_factor_row(double diagonal) {
  const std::size_t j = m_factor.size();
  const std::size_t at = m_at[j];
  std::vector<double> row(j + 1);
  double pivot = diagonal;
  for (std::size_t k = 0; k < j; ++k) {
    row[k] = m_v[k][at];
    pivot -= row[k] * row[k];
  }
  row[j] = std::sqrt(std::max(pivot, min_squared_pivot));
  std::vector<double>& v = m_v[j];
  const std::size_t n = v.size();
  for (std::size_t k = 0; k < j; ++k) {  // row by row: contiguous, vectorizable
    const double r = row[k];
    const double* vk = m_v[k].data();
    for (std::size_t i = 0; i < n; ++i) v[i] -= r * vk[i];
  }
  const double inverse = 1 / row[j];
  for (std::size_t i = 0; i < n; ++i) {
    v[i] *= inverse;
    m_explained[i] += v[i] * v[i];
  }
  m_factor.push_back(std::move(row));
}

void pool_posterior::rebuild(double diagonal, const column_function& column) {
  const std::size_t n = m_at.size();
  const std::size_t pool = candidates();
  for (std::size_t j = 0; j < n; ++j) {
    m_v[j].assign(pool, 0.0);
    column(m_at[j], m_v[j]);
  }
  std::fill(m_explained.begin(), m_explained.end(), 0.0);
  std::vector<double> kmat(n * n);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < i; ++j) kmat[i * n + j] = m_v[j][m_at[i]];
    kmat[i * n + i] = diagonal;
  }
  std::vector<double> l;
  bool factored = lower_cholesky(kmat, n, l);
  if (!factored) {  // numerically singular: jitter, then the clamped pivots of adding one at a time
    for (std::size_t i = 0; i < n; ++i) kmat[i * n + i] += jitter;
    factored = lower_cholesky(kmat, n, l);
  }
  if (!factored) {
    m_factor.clear();
    for (std::size_t j = 0; j < n; ++j) append_factor_row(diagonal);
    return;
  }
  for (std::size_t j = 0; j < n; ++j) m_factor[j].assign(&l[j * n], &l[j * n] + j + 1);
  // Chunks of candidates that stay in cache while every row of the solve passes over them.
  constexpr std::size_t chunk = 256;
  for (std::size_t i0 = 0; i0 < pool; i0 += chunk) {
    const std::size_t i1 = std::min(pool, i0 + chunk);
    for (std::size_t j = 0; j < n; ++j) {
      double* vj = m_v[j].data();
      const std::vector<double>& lj = m_factor[j];
      for (std::size_t k = 0; k < j; ++k) {
        const double r = lj[k];
        const double* vk = m_v[k].data();
        for (std::size_t i = i0; i < i1; ++i) vj[i] -= r * vk[i];
      }
      const double inverse = 1 / lj[j];
      for (std::size_t i = i0; i < i1; ++i) vj[i] *= inverse;
    }
  }
  for (std::size_t j = 0; j < n; ++j) {
    const double* vj = m_v[j].data();
    for (std::size_t i = 0; i < pool; ++i) m_explained[i] += vj[i] * vj[i];
  }
}

std::vector<double> pool_posterior::whiten(std::span<const double> y) const {
  std::vector<double> z(y.size());
  for (std::size_t i = 0; i < y.size(); ++i) {
    double s = y[i];
    for (std::size_t k = 0; k < i; ++k) s -= m_factor[i][k] * z[k];
    z[i] = s / m_factor[i][i];
  }
  return z;
}

std::vector<double> pool_posterior::means(std::span<const std::size_t> at,
                                          std::span<const double> beta) const {
  std::vector<double> mean(at.size(), 0.0);
  for (std::size_t j = 0; j < beta.size(); ++j) {
    const double b = beta[j];
    const double* v = m_v[j].data();
    for (std::size_t c = 0; c < at.size(); ++c) mean[c] += v[at[c]] * b;
  }
  return mean;
}

}  // namespace kbench::tune::detail
