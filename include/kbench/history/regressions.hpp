#pragma once
// `kbench regressions`: the detector run over every series of the history, as a report.

#include <kbench/history/detector.hpp>
#include <kbench/history/series.hpp>

#include <nlohmann/json.hpp>

#include <vector>

namespace kbench::history {

/// One series' verdict.
struct series_verdict {
  series_key key;
  std::size_t runs = 0;               // points in the series
  std::string newest_commit;          // the commit of the newest run
  std::int64_t newest_timestamp = 0;  // [s since the epoch]
  detection result;
};

/// The signature in every regressions JSON kbench writes (`"generator"`): the file may be replaced by the
/// next one (io/replaceable_file.hpp).
inline constexpr const char* regressions_generator = "kbench regressions";

/// Runs the detector on every series (oldest point first), with each metric's direction, leaving out the
/// points timed on a busy machine and the machine's own series (machine_marks.hpp).
[[nodiscard]] std::vector<series_verdict> find_regressions(const std::vector<series_history>& history,
                                                           const detector_options& options);

/// True when any verdict is a regression (what makes `kbench regressions` exit with 1).
[[nodiscard]] bool any_regression(const std::vector<series_verdict>& verdicts);

/// The report as JSON: the options and one object per series.
[[nodiscard]] nlohmann::json to_json(const std::vector<series_verdict>& verdicts,
                                     const detector_options& options);

}  // namespace kbench::history
