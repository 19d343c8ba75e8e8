// The normal and Student-t distributions (see distributions.hpp).

#include <kbench/error.hpp>
#include <kbench/history/distributions.hpp>

#include <cmath>
#include <limits>

namespace kbench::history {
namespace {

/// The continued fraction of I_x(a, b) by the modified Lentz method (Numerical Recipes, 3rd ed., 6.4);
/// converges fast for x < (a + 1) / (a + b + 2).
double beta_continued_fraction(double a, double b, double x) {
  constexpr double tiny = 1e-300;  // keeps the Lentz denominators away from 0
  constexpr double eps = 1e-15;
  constexpr int max_iterations = 10000;
  const double qab = a + b;
  const double qap = a + 1;
  const double qam = a - 1;
  double c = 1;
  double d = 1 - qab * x / qap;
  if (std::fabs(d) < tiny) d = tiny;
  d = 1 / d;
  double h = d;
  for (int m = 1; m <= max_iterations; ++m) {
    const double dm = m;
    const double m2 = 2 * dm;
    double aa = dm * (b - dm) * x / ((qam + m2) * (a + m2));  // the even step
    d = 1 + aa * d;
    if (std::fabs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (std::fabs(c) < tiny) c = tiny;
    d = 1 / d;
    h *= d * c;
    aa = -(a + dm) * (qab + dm) * x / ((a + m2) * (qap + m2));  // the odd step
    d = 1 + aa * d;
    if (std::fabs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (std::fabs(c) < tiny) c = tiny;
    d = 1 / d;
    const double delta = d * c;
    h *= delta;
    if (std::fabs(delta - 1) < eps) return h;
  }
  KBENCH_THROW("incomplete beta I_{}({}, {}) did not converge", x, a, b);
}

/// P(T > t) for t >= 0: 0.5 I_{df / (df + t^2)}(df / 2, 1 / 2), without the cancellation of 1 - cdf.
double student_t_upper_tail(double t, double df) {
  return 0.5 * regularized_incomplete_beta(df / 2, 0.5, df / (df + t * t));
}

}  // namespace

double normal_cdf(double z) {
  return 0.5 * std::erfc(-z / std::sqrt(2.0));
}

double regularized_incomplete_beta(double a, double b, double x) {
  if (!(a > 0) || !(b > 0) || !(x >= 0 && x <= 1)) {
    KBENCH_THROW("regularized_incomplete_beta: need a > 0, b > 0, 0 <= x <= 1 (got a={}, b={}, x={})", a, b,
                 x);
  }
  if (x == 0 || x == 1) return x;
  const double log_front =
      std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x);
  const double front = std::exp(log_front);
  // The fraction converges quickly on one side of the mean; the symmetry I_x(a, b) = 1 - I_{1-x}(b, a) covers
  // the other.
  if (x < (a + 1) / (a + b + 2)) return front * beta_continued_fraction(a, b, x) / a;
  return 1 - front * beta_continued_fraction(b, a, 1 - x) / b;
}

double student_t_cdf(double t, double df) {
  if (!(df > 0)) KBENCH_THROW("student_t_cdf: need df > 0 (got {})", df);
  if (std::isnan(t)) return t;
  const double tail = student_t_upper_tail(std::fabs(t), df);
  return t >= 0 ? 1 - tail : tail;
}

double student_t_quantile(double p, double df) {
  if (!(p > 0 && p < 1) || !(df > 0)) {
    KBENCH_THROW("student_t_quantile: need 0 < p < 1 and df > 0 (got p={}, df={})", p, df);
  }
  if (p == 0.5) return 0;
  // Solve P(T > t) = q for t >= 0 on the tail that is small, then restore the sign by symmetry.
  const double q = p > 0.5 ? 1 - p : p;
  double lo = 0;
  double hi = 1;
  while (student_t_upper_tail(hi, df) > q) {
    lo = hi;
    hi *= 2;
    if (hi > 1e300)
      return p > 0.5 ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity();
  }
  for (int i = 0; i < 2000 && hi - lo > 1e-13 * hi; ++i) {
    const double mid = 0.5 * (lo + hi);
    if (student_t_upper_tail(mid, df) > q) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  const double t = 0.5 * (lo + hi);
  return p > 0.5 ? t : -t;
}

}  // namespace kbench::history
