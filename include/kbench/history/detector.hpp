#pragma once
// The regression detector of `kbench regressions`: is the newest point of a series out of line with the
// runs before it, by more than noise and by more than a minimum effect, for long enough to alert on?

#include <cstddef>
#include <span>
#include <string_view>

namespace kbench::history {

struct detector_options {
  std::size_t window = 20;      // K: baseline runs before the candidates [runs]
  double threshold = 0.05;      // minimum effect size: |newest / baseline - 1| [fraction]
  double confidence = 0.99;     // two-sided coverage of the prediction interval [probability]
  std::size_t min_history = 5;  // fewer baseline runs than this: insufficient data [runs]
};

enum class verdict {
  insufficient_data,
  ok,
  suspicious_regression,  // only the newest run is worse: wait for the next one
  regression,             // the two newest runs are worse
  suspicious_improvement,
  improvement,
};

/// "insufficient data", "ok", "suspicious regression", "regression", "suspicious improvement", "improvement".
[[nodiscard]] std::string_view to_string(verdict v);

struct detection {
  verdict status = verdict::insufficient_data;
  std::size_t baseline_runs = 0;  // runs in the baseline the candidates were tested against
  double newest = 0;              // the newest value [the metric's unit]
  double baseline = 0;            // the baseline's centre: geometric mean on the log scale, else the mean
  double change = 0;              // newest / baseline - 1 [fraction]; positive = the value went up
  double lower = 0, upper = 0;    // the prediction interval [the metric's unit]
  bool log_scale = true;          // false when a value <= 0 forced the linear scale (e.g. accuracy 0)
};

/// Metrics where a larger value is better (speedup, bandwidth_gbps, triad_fraction, gflops, capture_ratio,
/// accuracy); for all others (latencies, autotune_s) a larger value is a regression.
[[nodiscard]] bool higher_is_better(std::string_view metric);

/// Judges the newest value of `values` (one per run, oldest first).
///
/// The candidates are the two newest runs; the baseline is the `window` runs before the second newest. A
/// candidate is out of line when it falls outside the Student-t prediction interval of one new observation,
/// mean +- t_{(1 + confidence) / 2, k - 1} s sqrt(1 + 1 / k), computed on log values (so a +10% and a -9.1%
/// change are equally far), and differs from the baseline by at least `threshold`. A regression needs both
/// candidates out of line on the worse side; only the newest is "suspicious". With too few runs for that
/// baseline, the newest alone is tested against the runs before it (at most "suspicious"); with fewer than
/// `min_history` runs before the newest, "insufficient data". Values <= 0 switch to the linear scale.
[[nodiscard]] detection detect(std::span<const double> values, bool higher_is_better,
                               const detector_options& options = {});

}  // namespace kbench::history
