#pragma once
// The Gaussian-process pieces the two Bayesian strategies share: the Matern 5/2 kernel, target
// standardization, a Cholesky factorization, and the posterior over a pool of candidate configs that grows
// one observation at a time. The strategies choose the inputs, the kernel's form, the targets and how the
// hyperparameters are fitted.

#include <cstddef>
#include <functional>
#include <span>
#include <vector>

namespace kbench::tune::detail {

/// Matern 5/2 correlation of the squared distance r2 in length-scale units.
[[nodiscard]] double matern52(double r2);
/// Its derivative factor: d matern52(r2) / d log(l_d) = matern52_slope(r2) * delta_d^2 / l_d^2.
[[nodiscard]] double matern52_slope(double r2);

/// Shifts and scales `values` to mean 0 and standard deviation 1 (all 0 when they are all equal).
void standardize(std::vector<double>& values);

/// Lower Cholesky factor of the row-major n x n matrix `a` (its lower triangle is read) into `l` (n x n,
/// row-major). False when `a` is not positive definite or a squared pivot is at most 1e-12; the caller then
/// adds jitter or gives up.
[[nodiscard]] bool lower_cholesky(std::span<const double> a, std::size_t n, std::vector<double>& l);

/// The posterior of a zero-mean Gaussian process at a pool of candidates (positions 0, 1, ...), some of which
/// have been observed. It keeps the Cholesky factor L of K(observations) + noise I and, per observation j,
/// v_j = row j of L^-1 k(observations, candidates), so that adding an observation costs O(pool x n) for n
/// observations. At candidate i the posterior mean is sum_j v_j[i] beta_j with beta = L^-1 y (whiten), and
/// the variance is k(x_i, x_i) - explained(i).
class pool_posterior {
 public:
  /// Fills column[i] = k(candidate i, candidate at) for every candidate.
  using column_function = std::function<void(std::size_t at, std::span<double> column)>;

  [[nodiscard]] std::size_t candidates() const { return m_explained.size(); }
  [[nodiscard]] std::size_t observations() const { return m_factor.size(); }
  /// Pool positions of the observations, in the order they were added.
  [[nodiscard]] std::span<const std::size_t> observed_at() const { return m_at; }

  /// Appends a candidate; kernel_to_observations[j] = k(new candidate, observation j) for every observation.
  void add_candidate(std::span<const double> kernel_to_observations);
  /// Adds an observation of the candidate at pool position `at`. `diagonal` is k(x, x) + noise;
  /// column[i] = k(candidate i, candidate at) for every candidate. A pivot that rounding (or a near-duplicate
  /// observation) drives to zero is clamped. Throws kbench::error when `at` is not in the pool or the column
  /// has the wrong size (a bug in the caller).
  void add_observation(std::size_t at, double diagonal, std::vector<double> column);
  /// Recomputes everything for a new kernel (hyperparameters), with the same observations: the numbers that
  /// adding them one by one would give, but the triangular solve runs over cache-sized chunks of candidates.
  void rebuild(double diagonal, const column_function& column);

  /// L^-1 y for targets y of the observations.
  [[nodiscard]] std::vector<double> whiten(std::span<const double> y) const;
  /// Posterior means at the given candidates, from beta = whiten(y).
  [[nodiscard]] std::vector<double> means(std::span<const std::size_t> at,
                                          std::span<const double> beta) const;
  /// |(L^-1 k(observations, candidate i))|^2: how much of the prior variance at candidate i the observations
  /// explain.
  [[nodiscard]] double explained(std::size_t i) const { return m_explained[i]; }

 private:
  void append_factor_row(double diagonal);

  std::vector<std::size_t> m_at;              // pool positions of the observations
  std::vector<std::vector<double>> m_factor;  // Cholesky rows: m_factor[j] has j + 1 entries
  std::vector<std::vector<double>> m_v;       // m_v[j][i] = (L^-1 k(observations, candidate i))_j
  std::vector<double> m_explained;            // per candidate: sum over j of m_v[j][i]^2
};

}  // namespace kbench::tune::detail
