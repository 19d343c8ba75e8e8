// The Mann-Whitney U test (see mann_whitney.hpp).

#include <kbench/error.hpp>
#include <kbench/history/mann_whitney.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace kbench::history {
namespace {

/// log C(n, k).
double log_binomial(std::size_t n, std::size_t k) {
  return std::lgamma(static_cast<double>(n) + 1) - std::lgamma(static_cast<double>(k) + 1) -
         std::lgamma(static_cast<double>(n - k) + 1);
}

/// P(U <= u) under the null for sizes m and n without ties: counts of rankings by U through the recurrence
/// c(m, n, u) = c(m - 1, n, u - n) + c(m, n - 1, u) (Mann and Whitney, 1947), divided by C(m + n, m).
double exact_cdf(std::size_t m, std::size_t n, std::size_t u) {
  const std::size_t max_u = m * n;
  // counts[j][v]: rankings of i first-sample and j second-sample values with U = v; rolled over i.
  std::vector<std::vector<double>> counts(n + 1, std::vector<double>(max_u + 1, 0.0));
  for (std::size_t j = 0; j <= n; ++j) counts[j][0] = 1;  // i = 0: U is 0
  for (std::size_t i = 1; i <= m; ++i) {
    std::vector<std::vector<double>> next(n + 1, std::vector<double>(max_u + 1, 0.0));
    next[0][0] = 1;  // j = 0: U is 0
    for (std::size_t j = 1; j <= n; ++j) {
      for (std::size_t v = 0; v <= i * j; ++v) {
        // The largest value belongs to the first sample (it beats all j others) or to the second.
        next[j][v] = (v >= j ? counts[j][v - j] : 0.0) + next[j - 1][v];
      }
    }
    counts = std::move(next);
  }
  const double total = std::accumulate(counts[n].begin(), counts[n].end(), 0.0);
  const double below =
      std::accumulate(counts[n].begin(), counts[n].begin() + static_cast<std::ptrdiff_t>(u) + 1, 0.0);
  return below / total;
}

}  // namespace

std::string_view to_string(mann_whitney_method method) {
  switch (method) {
    case mann_whitney_method::exact:
      return "exact";
    case mann_whitney_method::normal:
      return "normal";
    case mann_whitney_method::not_enough_samples:
      return "not enough samples";
  }
  return "?";
}

mann_whitney_result mann_whitney_u(std::span<const double> a, std::span<const double> b, double alpha) {
  const std::size_t m = a.size();
  const std::size_t n = b.size();
  mann_whitney_result result;
  if (m == 0 || n == 0) return result;
  for (const auto* set : {&a, &b}) {
    for (double v : *set) {
      if (!std::isfinite(v)) KBENCH_THROW("mann_whitney_u: samples must be finite (got {})", v);
    }
  }
  // Ranks over the pooled samples (1-based), ties getting the average of the ranks they span.
  std::vector<std::pair<double, bool>> pooled;  // value, from the first sample
  pooled.reserve(m + n);
  for (double v : a) pooled.emplace_back(v, true);
  for (double v : b) pooled.emplace_back(v, false);
  std::sort(pooled.begin(), pooled.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  const std::size_t total = m + n;
  double rank_sum_a = 0;
  double tie_term = 0;  // sum over tie groups of t^3 - t
  for (std::size_t i = 0; i < total;) {
    std::size_t j = i;
    while (j + 1 < total && pooled[j + 1].first == pooled[i].first) ++j;
    const double average_rank = 0.5 * (static_cast<double>(i + 1) + static_cast<double>(j + 1));
    for (std::size_t k = i; k <= j; ++k) {
      if (pooled[k].second) rank_sum_a += average_rank;
    }
    const double t = static_cast<double>(j - i + 1);
    tie_term += t * t * t - t;
    i = j + 1;
  }
  const double dm = static_cast<double>(m);
  const double dn = static_cast<double>(n);
  result.u = rank_sum_a - dm * (dm + 1) / 2;

  // 2 / C(m + n, m): the p-value of the most extreme ranking, the best these sizes can do.
  if (std::log(2.0) - log_binomial(total, m) > std::log(alpha)) return result;

  if (tie_term == 0 && m <= mann_whitney_exact_limit && n <= mann_whitney_exact_limit) {
    result.method = mann_whitney_method::exact;
    const auto u = static_cast<std::size_t>(std::llround(result.u));
    // Two-sided: twice the smaller tail; the null distribution is symmetric about m n / 2.
    const std::size_t lower_u = std::min(u, m * n - u);
    result.p_value = std::min(1.0, 2 * exact_cdf(m, n, lower_u));
    return result;
  }
  result.method = mann_whitney_method::normal;
  const double mean = dm * dn / 2;
  const double nn = dm + dn;
  const double variance = dm * dn / 12 * ((nn + 1) - tie_term / (nn * (nn - 1)));
  if (variance <= 0) {  // every value equal: no evidence of a shift
    result.p_value = 1;
    return result;
  }
  const double z =
      std::max(0.0, std::fabs(result.u - mean) - 0.5) / std::sqrt(variance);  // continuity-corrected
  result.p_value = std::min(1.0, std::erfc(z / std::sqrt(2.0)));              // 2 (1 - Phi(z))
  return result;
}

}  // namespace kbench::history
