#pragma once
// `kbench report`: one self-contained HTML page (inline CSS and inline SVG, no script, no external URL) that
// shows, per kernel, the speedup vs torch per shape, the wall latency over the runs with the regression
// detector's flags, the % of the calibrated peak bandwidth, and the three-measure table of the newest run.
//
// **Example**:
//   auto db = kbench::history::open_store("sqlite:///tmp/h.db");
//   const auto page = kbench::report::render_html_report({"/tmp/h.db", db->series()},
//                                                        {.peak = kbench::report::cached_peak});
//   kbench::io::write_file_atomically("report.html", page.html);

#include <kbench/history/detector.hpp>
#include <kbench/history/series.hpp>
#include <kbench/io/atomic_file.hpp>
#include <kbench/suite/calibrate.hpp>

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace kbench::report {

/// The generator every report names in a meta tag: an existing file without it is not kbench's report and
/// is never overwritten (io/replaceable_file.hpp).
inline constexpr const char* html_report_generator = "kbench report";

/// What a report is drawn from: series (as the history store returns them) and where they came from.
struct report_data {
  std::string source;                           // for the page header: a database or the file names
  std::vector<history::series_history> series;  // points oldest run first
};

/// The calibrated bandwidth of the device a series was measured on, if known.
using calibration_lookup = std::function<std::optional<suite::calibration>(const history::series_key& key)>;

struct html_report_options {
  history::detector_options detector;  // flags on the latency lines (as `kbench regressions` judges)
  calibration_lookup peak;             // empty: no calibration known ("no calibration" on the page)
};

/// The page and what it flagged.
struct html_report {
  std::string html;
  std::size_t kernels = 0;
  std::size_t runs = 0;
  std::size_t regressions = 0;  // latency series whose newest run is a regression
  std::size_t suspicious = 0;   // latency series whose newest run is a suspicious regression
};

/// Renders the report. Series without points are left out; no series at all gives a page that says so
/// (the command refuses that case before rendering).
[[nodiscard]] html_report render_html_report(const report_data& data, const html_report_options& options);

/// The runs of v3 result files as series, the way the history store would return them: one series per key,
/// points in time order (timestamp, then host). A run given twice (same timestamp and host) keeps the
/// points of its last copy.
[[nodiscard]] std::vector<history::series_history> series_of_runs(
    const std::vector<history::run_records>& runs);

/// The calibration cache's entry (calibrate.hpp) for the series' runner: backend runner_name, device
/// runner_type. None for an unknown backend name.
[[nodiscard]] std::optional<suite::calibration> cached_peak(const history::series_key& key);

}  // namespace kbench::report
