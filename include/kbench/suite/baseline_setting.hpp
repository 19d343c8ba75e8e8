#pragma once
// The torch baseline's setting: its intra-op thread count and libgomp's spin count (GOMP_SPINCOUNT), chosen
// per kernel x shape by baseline_tuning.hpp, and every setting timed on the way. It travels with the shape's
// result (JSON) and into the records.

#include <kbench/config.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace kbench::suite {

/// The config key of the baseline's intra-op thread count.
inline constexpr const char* baseline_threads_key = "threads";
/// The config key of the spin count, in the cache and the JSON (it reaches torch as GOMP_SPINCOUNT).
inline constexpr const char* baseline_spin_key = "spin";
/// The thread count a torch binding's config asks for; 0 when it names none (libtorch's count stays).
[[nodiscard]] int baseline_threads(const config& values);

/// One setting timed: its median synchronized wall latency in its worker, or why it failed.
struct baseline_candidate {
  std::int64_t threads = 0;
  std::int64_t spin = 0;
  bool ok = false;
  double median_ms = 0;  // [ms]
  double spread = 0;     // [fraction] half the IQR over the median
  std::string message;   // why it failed, when not ok
};

/// The setting the baseline is measured with, and how it was chosen.
struct baseline_setting {
  std::int64_t threads = 0;
  std::int64_t spin = 0;
  double median_ms = 0;                        // [ms] of the chosen candidate when it was tuned
  std::string source;                          // "tuned" or "cache hit"
  std::vector<baseline_candidate> candidates;  // every setting timed, in spin then thread order
  double tuning_s = 0;                         // [s] spent now (0 on a cache hit)
  std::vector<std::string> warnings;           // failed workers, unreadable cache files

  /// {"threads": t}: the torch binding's config.
  [[nodiscard]] config binding_config() const;
  /// "GOMP_SPINCOUNT=<spin>": the environment of the shape's worker.
  [[nodiscard]] std::string environment() const;
  /// "2 threads, spin 300000": for summaries.
  [[nodiscard]] std::string describe() const;
};

void to_json(nlohmann::json& j, const baseline_candidate& c);
void from_json(const nlohmann::json& j, baseline_candidate& c);
void to_json(nlohmann::json& j, const baseline_setting& s);
void from_json(const nlohmann::json& j, baseline_setting& s);

}  // namespace kbench::suite
