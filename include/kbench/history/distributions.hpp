#pragma once
// The probability distributions the history's tests need: the standard normal, Student's t (for the
// regression detector's prediction interval) and the regularized incomplete beta function behind it, from
// Boost.Math (header-only).

namespace kbench::history {

/// P(Z <= z) for a standard normal Z.
[[nodiscard]] double normal_cdf(double z);

/// I_x(a, b), the regularized incomplete beta function, for a, b > 0 and x in [0, 1]. Throws kbench::error on
/// arguments outside that domain.
[[nodiscard]] double regularized_incomplete_beta(double a, double b, double x);

/// P(T <= t) for Student's t with `df` > 0 degrees of freedom.
[[nodiscard]] double student_t_cdf(double t, double df);

/// The t with P(T <= t) = p, for p in (0, 1) and df > 0. **Example**: student_t_quantile(0.975, 10) =
/// 2.2281...
[[nodiscard]] double student_t_quantile(double p, double df);

}  // namespace kbench::history
