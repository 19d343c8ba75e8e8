#pragma once
// `kbench compare base.json new.json`: which latencies moved between two result files, with a test that
// tells a real shift from noise.

#include <kbench/history/mann_whitney.hpp>
#include <kbench/stats.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace kbench::history {

enum class change { faster, slower, same, not_enough_samples };

/// "faster", "slower", "same", "not enough samples".
[[nodiscard]] std::string_view to_string(change c);

/// The metrics compare looks at: latency_ms, throughput_ms, device_ms (lower is faster).
[[nodiscard]] bool is_latency_metric(std::string_view metric);

/// One kernel x shape x implementation x latency metric present in both files.
struct series_comparison {
  std::string kernel, shape, implementation, metric;
  std::size_t base_samples = 0, new_samples = 0;
  double base_median = 0, new_median = 0;  // [ms]
  double ratio = 0;                        // new_median / base_median: below 1 = faster
  mann_whitney_result test;
  change verdict = change::not_enough_samples;
};

/// The geometric mean of the ratios of one metric over the series present in both files.
struct geomean_ratio {
  std::string metric;
  double ratio = 0;
  std::size_t series = 0;
};

struct comparison {
  std::vector<series_comparison> series;  // sorted by kernel, shape, implementation, metric
  std::vector<geomean_ratio> geomeans;    // one per metric with common series
  std::vector<std::string> only_in_base;  // "kernel shape implementation metric" of unmatched series
  std::vector<std::string> only_in_new;
};

/// Compares two lists of v3 records at significance level `alpha`. A series is "faster" or "slower" when the
/// two-sided Mann-Whitney U test on the raw samples gives p < alpha and the ratio of medians differs from 1
/// by at least `min_effect` (beyond_min_effect; the direction from the ratio), "same" otherwise, and "not
/// enough samples" when the sample sizes cannot reach alpha. A key repeated within one file keeps its last
/// record (the newest, as runs append).
[[nodiscard]] comparison compare_records(const nlohmann::json& base, const nlohmann::json& newer,
                                         double alpha = 0.05, double min_effect = default_min_effect);

/// `comparison` as JSON (what `kbench compare --json` writes).
[[nodiscard]] nlohmann::json to_json(const comparison& c);

}  // namespace kbench::history
