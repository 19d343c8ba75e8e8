// The regression detector (see detector.hpp).

#include <kbench/error.hpp>
#include <kbench/history/detector.hpp>
#include <kbench/history/distributions.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace kbench::history {
namespace {

/// Where a candidate lies relative to the baseline, in the metric's own sense of better and worse.
enum class side { inside, worse, better };

struct interval {
  double centre = 0;      // mean of the baseline (log or linear scale)
  double half_width = 0;  // on the same scale
};

interval prediction_interval(std::span<const double> baseline, double confidence) {
  const double k = static_cast<double>(baseline.size());
  const double mean = std::accumulate(baseline.begin(), baseline.end(), 0.0) / k;
  double squares = 0;
  for (double v : baseline) squares += (v - mean) * (v - mean);
  const double sd = std::sqrt(squares / (k - 1));
  const double t = student_t_quantile(0.5 + confidence / 2, k - 1);
  return {mean, t * sd * std::sqrt(1 + 1 / k)};
}

/// Relative change of `x` against the interval's centre, both on the detector's scale.
double relative_change(double x, double centre, bool log_scale) {
  if (log_scale) return std::exp(x - centre) - 1;
  if (centre == 0) return x - centre;  // no scale to be relative to: the absolute change
  return (x - centre) / std::fabs(centre);
}

side classify(double x, const interval& pi, bool log_scale, bool higher_better, double threshold) {
  const double change = relative_change(x, pi.centre, log_scale);
  if (std::fabs(change) < threshold) return side::inside;
  const bool up = x > pi.centre + pi.half_width;
  const bool down = x < pi.centre - pi.half_width;
  if (!up && !down) return side::inside;
  return up != higher_better ? side::worse : side::better;
}

}  // namespace

std::string_view to_string(verdict v) {
  switch (v) {
    case verdict::insufficient_data:
      return "insufficient data";
    case verdict::ok:
      return "ok";
    case verdict::suspicious_regression:
      return "suspicious regression";
    case verdict::regression:
      return "regression";
    case verdict::suspicious_improvement:
      return "suspicious improvement";
    case verdict::improvement:
      return "improvement";
  }
  return "?";
}

bool higher_is_better(std::string_view metric) {
  return metric == "speedup" || metric == "bandwidth_gbps" || metric == "triad_fraction" ||
         metric == "gflops" || metric == "capture_ratio" || metric == "accuracy";
}

detection detect(std::span<const double> values, bool higher_better, const detector_options& options) {
  if (options.min_history < 2)
    KBENCH_THROW("detect: min_history must be at least 2 (got {})", options.min_history);
  if (options.window < options.min_history) {
    KBENCH_THROW("detect: window ({}) must be at least min_history ({})", options.window,
                 options.min_history);
  }
  if (!(options.confidence > 0 && options.confidence < 1)) {
    KBENCH_THROW("detect: confidence must be in (0, 1) (got {})", options.confidence);
  }
  detection result;
  const std::size_t n = values.size();
  if (n == 0) return result;
  result.newest = values[n - 1];
  // Two candidates when the second newest has a full minimum history before it, else only the newest.
  const bool two_candidates = n >= options.min_history + 2;
  const std::size_t candidates = two_candidates ? 2 : 1;
  if (n < options.min_history + 1) return result;
  const std::size_t end = n - candidates;  // one past the baseline's last run
  const std::size_t begin = end > options.window ? end - options.window : 0;
  result.baseline_runs = end - begin;

  const auto used = values.subspan(begin);
  result.log_scale = std::all_of(used.begin(), used.end(), [](double v) { return v > 0; });
  std::vector<double> scaled(used.begin(), used.end());
  if (result.log_scale) {
    for (double& v : scaled) v = std::log(v);
  }
  const auto baseline = std::span<const double>(scaled).first(result.baseline_runs);
  const interval pi = prediction_interval(baseline, options.confidence);
  auto unscale = [&](double v) { return result.log_scale ? std::exp(v) : v; };
  result.baseline = unscale(pi.centre);
  result.lower = unscale(pi.centre - pi.half_width);
  result.upper = unscale(pi.centre + pi.half_width);
  result.change = relative_change(scaled.back(), pi.centre, result.log_scale);

  const side newest = classify(scaled.back(), pi, result.log_scale, higher_better, options.threshold);
  const side previous = two_candidates ? classify(scaled[scaled.size() - 2], pi, result.log_scale,
                                                  higher_better, options.threshold)
                                       : side::inside;
  switch (newest) {
    case side::inside:
      result.status = verdict::ok;
      break;
    case side::worse:
      result.status = previous == side::worse ? verdict::regression : verdict::suspicious_regression;
      break;
    case side::better:
      result.status = previous == side::better ? verdict::improvement : verdict::suspicious_improvement;
      break;
  }
  return result;
}

}  // namespace kbench::history
