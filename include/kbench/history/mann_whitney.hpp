#pragma once
// The two-sided Mann-Whitney U test: do two sample sets come from distributions shifted against each other?
// Distribution-free, so it suits timing samples (skewed, with outliers) better than a t-test.

#include <cstddef>
#include <span>
#include <string_view>

namespace kbench::history {

/// How the p-value was obtained.
enum class mann_whitney_method {
  exact,              // the exact null distribution of U (small samples without ties)
  normal,             // the normal approximation with tie and continuity corrections
  not_enough_samples  // even the most extreme ranking could not reach the significance level
};

[[nodiscard]] std::string_view to_string(mann_whitney_method method);

struct mann_whitney_result {
  double u = 0;        // U of the first sample: pairs (a_i, b_j) with a_i > b_j, ties counting 1/2
  double p_value = 1;  // two-sided; 1 when method is not_enough_samples
  mann_whitney_method method = mann_whitney_method::not_enough_samples;
};

/// Samples with at most this many values each and no ties get the exact p-value.
inline constexpr std::size_t mann_whitney_exact_limit = 20;

/// Tests `a` against `b` at significance level `alpha`. The p-value is exact when both sets hold at most
/// mann_whitney_exact_limit values and no value repeats; otherwise the normal approximation with tie
/// correction. When the smallest p-value the sizes allow, 2 / C(n_a + n_b, n_a), exceeds `alpha` (e.g. 3
/// against 3 samples: 0.1), no ordering could be significant and the result says not_enough_samples.
[[nodiscard]] mann_whitney_result mann_whitney_u(std::span<const double> a, std::span<const double> b,
                                                 double alpha = 0.05);

}  // namespace kbench::history
