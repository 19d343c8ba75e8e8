#pragma once
// Summary statistics of timing samples.

#include <kbench/timing_budget.hpp>

#include <cstddef>
#include <span>
#include <vector>

namespace kbench {

/// Statistics of a sample set; all values in the samples' unit (ms in kbench).
struct summary {
  std::size_t count = 0;
  double min = 0, max = 0, mean = 0, median = 0;
  double stdev = 0;                // sample standard deviation (n - 1)
  double q1 = 0, q3 = 0, iqr = 0;  // quartiles by linear interpolation (numpy's default), iqr = q3 - q1
  double median_ci_low = 0;  // 99% distribution-free confidence interval of the median (order statistics)
  double median_ci_high = 0;
  double cv = 0;  // coefficient of variation = stdev / mean [fraction]
};

/// Half the interquartile range over the median [fraction] (0 when the median is 0): the spread kbench
/// prints beside a median. Unlike the coefficient of variation, a few preempted samples barely move it.
[[nodiscard]] double relative_spread(const summary& s);

/// Quantile q in [0, 1] of `samples` by linear interpolation between order statistics (numpy "linear").
/// Throws kbench::error on an empty sample set or q outside [0, 1].
[[nodiscard]] double quantile(std::span<const double> samples, double q);

/// All statistics of `samples`. An empty set gives count 0 and zeros.
[[nodiscard]] summary summarize(std::span<const double> samples);

/// [fraction] The smallest change kbench calls faster or slower by default, however many samples tell it
/// from noise: a 0.3% difference that a test finds significant is no difference to a user.
inline constexpr double default_min_effect = default_timing_budget.min_effect;

/// Whether `ratio` differs from 1 by at least `min_effect`, either way: ratio >= 1 + min_effect or
/// ratio <= 1 / (1 + min_effect) (symmetric for a ratio and its inverse).
[[nodiscard]] bool beyond_min_effect(double ratio, double min_effect);

}  // namespace kbench
