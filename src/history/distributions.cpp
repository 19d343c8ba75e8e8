// The normal and Student-t distributions (see distributions.hpp), by Boost.Math.

#include <kbench/error.hpp>
#include <kbench/history/distributions.hpp>

#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <boost/math/special_functions/beta.hpp>

#include <cmath>

namespace kbench::history {

double normal_cdf(double z) {
  return boost::math::cdf(boost::math::normal_distribution<double>(), z);
}

double regularized_incomplete_beta(double a, double b, double x) {
  if (!(a > 0) || !(b > 0) || !(x >= 0 && x <= 1)) {
    KBENCH_THROW("regularized_incomplete_beta: need a > 0, b > 0, 0 <= x <= 1 (got a={}, b={}, x={})", a, b,
                 x);
  }
  return boost::math::ibeta(a, b, x);
}

double student_t_cdf(double t, double df) {
  if (!(df > 0)) KBENCH_THROW("student_t_cdf: need df > 0 (got {})", df);
  if (std::isnan(t)) return t;
  if (std::isinf(t)) return t > 0 ? 1 : 0;
  return boost::math::cdf(boost::math::students_t_distribution<double>(df), t);
}

double student_t_quantile(double p, double df) {
  if (!(p > 0 && p < 1) || !(df > 0)) {
    KBENCH_THROW("student_t_quantile: need 0 < p < 1 and df > 0 (got p={}, df={})", p, df);
  }
  return boost::math::quantile(boost::math::students_t_distribution<double>(df), p);
}

}  // namespace kbench::history
