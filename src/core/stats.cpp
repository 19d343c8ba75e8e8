// Summary statistics of timing samples (see stats.hpp).

#include <kbench/error.hpp>
#include <kbench/stats.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace kbench {
namespace {

/// Quantile of already sorted, non-empty samples, numpy's "linear" method: h = (n - 1) q, interpolate between
/// the order statistics floor(h) and floor(h) + 1 (0-based).
double sorted_quantile(std::span<const double> sorted, double q) {
  const double h = static_cast<double>(sorted.size() - 1) * q;
  const auto lo = static_cast<std::size_t>(std::floor(h));
  if (lo + 1 >= sorted.size()) {
    return sorted.back();
  }
  const double frac = h - static_cast<double>(lo);
  return sorted[lo] + frac * (sorted[lo + 1] - sorted[lo]);
}

/// Largest k with P(X < k) <= alpha / 2 for X ~ binomial(n, 0.5), alpha = 1%: the 1-based rank of the lower
/// end of the 99% distribution-free confidence interval of the median, [x_(k), x_(n-k+1)]. 0 when even the
/// widest interval [x_(1), x_(n)] does not reach 99% (n <= 7).
std::size_t median_ci_rank(std::size_t n) {
  constexpr double tail = 0.005;  // (1 - 0.99) / 2
  // pmf(i) = C(n, i) / 2^n, summed in linear space from log-space terms: the first terms underflow to 0 for
  // large n, which is harmless since they are negligible against the 0.005 tail.
  const double dn = static_cast<double>(n);
  const double log_norm = std::lgamma(dn + 1) - dn * std::log(2.0);
  double cdf = 0;  // P(X < k) for the current k
  std::size_t k = 0;
  while (k < n / 2) {
    const double dk = static_cast<double>(k);
    const double pmf = std::exp(log_norm - std::lgamma(dk + 1) - std::lgamma(dn - dk + 1));
    if (cdf + pmf > tail) {  // P(X < k + 1) would exceed the tail
      break;
    }
    cdf += pmf;
    ++k;
  }
  return k;
}

}  // namespace

double relative_spread(const summary& s) {
  return s.median > 0 ? s.iqr / (2 * s.median) : 0.0;
}

double quantile(std::span<const double> samples, double q) {
  if (samples.empty()) {
    KBENCH_THROW("quantile of an empty sample set");
  }
  if (!(q >= 0.0 && q <= 1.0)) {  // also rejects NaN
    KBENCH_THROW("quantile {} is outside [0, 1]", q);
  }
  std::vector<double> sorted(samples.begin(), samples.end());
  std::sort(sorted.begin(), sorted.end());
  return sorted_quantile(sorted, q);
}

summary summarize(std::span<const double> samples) {
  summary s;
  if (samples.empty()) {
    return s;
  }
  std::vector<double> sorted(samples.begin(), samples.end());
  std::sort(sorted.begin(), sorted.end());
  const std::size_t n = sorted.size();
  const auto dn = static_cast<double>(n);

  s.count = n;
  s.min = sorted.front();
  s.max = sorted.back();
  s.mean = std::accumulate(sorted.begin(), sorted.end(), 0.0) / dn;
  if (n > 1) {
    double sum_sq =
        0;  // two-pass: sum of squared deviations from the mean, stable for tightly clustered samples
    for (double x : sorted) {
      sum_sq += (x - s.mean) * (x - s.mean);
    }
    s.stdev = std::sqrt(sum_sq / (dn - 1));
  }
  s.median = sorted_quantile(sorted, 0.5);
  s.q1 = sorted_quantile(sorted, 0.25);
  s.q3 = sorted_quantile(sorted, 0.75);
  s.iqr = s.q3 - s.q1;

  const std::size_t k = median_ci_rank(n);
  if (k == 0) {  // too few samples for 99%: the widest interval there is
    s.median_ci_low = s.min;
    s.median_ci_high = s.max;
  } else {  // x_(k) and x_(n-k+1), 1-based
    s.median_ci_low = sorted[k - 1];
    s.median_ci_high = sorted[n - k];
  }
  s.cv = s.mean != 0 ? s.stdev / s.mean : 0;
  return s;
}

bool beyond_min_effect(double ratio, double min_effect) {
  return ratio >= 1 + min_effect || ratio <= 1 / (1 + min_effect);
}

}  // namespace kbench
