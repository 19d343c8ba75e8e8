#pragma once
// Which points of the history were timed on a busy machine. `kbench run` records, beside each
// implementation's timings, a metric machine_disturbed (1: other work took the CPUs while the shape was
// timed, 0: quiet; suite/v3_records.hpp), because the history keeps metrics and drops extra_info. The
// regression detector leaves the disturbed points out, and the report marks them.

#include <kbench/history/series.hpp>
#include <kbench/io/run_marks.hpp>

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace kbench::history {

using io::machine_disturbed_metric;

/// Metrics that mark a run rather than measure a kernel (io/run_marks.hpp): never judged as a kernel's
/// regression.
[[nodiscard]] bool is_machine_metric(std::string_view metric);

/// The runs in which each implementation x shape was timed on a busy machine.
class disturbed_runs {
 public:
  explicit disturbed_runs(const std::vector<series_history>& all);
  /// Whether the point of `key` (any metric) in `run` was timed on a busy machine.
  [[nodiscard]] bool contains(const series_key& key, const run_info& run) const;
  [[nodiscard]] bool empty() const { return m_runs.empty(); }

 private:
  // (the key less its metric, timestamp, host)
  std::set<std::tuple<series_key, std::int64_t, std::string>> m_runs;
};

/// `all` without the mark series and without the points that were timed on a busy machine: what the
/// regression detector judges.
[[nodiscard]] std::vector<series_history> quiet_points_only(const std::vector<series_history>& all);

}  // namespace kbench::history
