// `kbench report [--db URL | results.json ...] --out report.html`: one self-contained HTML page per history
// or set of result files (see report/html_report.hpp). Everything is read and checked before the page is
// written, and it is written atomically: bad input exits with 2 and leaves no file behind.

#include <kbench/error.hpp>
#include <kbench/history/records.hpp>
#include <kbench/history/store.hpp>
#include <kbench/io/atomic_file.hpp>
#include <kbench/io/json_v3.hpp>
#include <kbench/io/replaceable_file.hpp>
#include <kbench/report/html_report.hpp>

#include "numeric_option.hpp"
#include "subcommand.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <memory>

namespace kbench::cli {
namespace {

struct report_options {
  std::vector<std::string> files;  // v3 result files; empty = the history database
  std::string db;                  // history database URL; empty = $KBENCH_DB or the default file
  std::string out;                 // the HTML file to write
  std::vector<std::string> kernels;
  history::detector_options detector;
};

report::report_data read_files(const report_options& options) {
  std::vector<history::run_records> runs;
  for (const auto& file : options.files) {
    const nlohmann::json doc = history::read_results_file(file);  // usage_error when not v3 JSON
    auto file_runs = history::runs_from_records(doc, "");
    runs.insert(runs.end(), std::make_move_iterator(file_runs.begin()),
                std::make_move_iterator(file_runs.end()));
  }
  report::report_data data;
  data.source = fmt::format("{}", fmt::join(options.files, ", "));
  data.series = report::series_of_runs(runs);
  if (!options.kernels.empty()) {
    std::erase_if(data.series, [&](const history::series_history& s) {
      return std::find(options.kernels.begin(), options.kernels.end(), s.key.kernel) == options.kernels.end();
    });
  }
  return data;
}

report::report_data read_database(const report_options& options) {
  const std::string url = options.db.empty() ? history::default_database_url() : options.db;
  // Read-only: a report never creates a database where it found none (usage_error: cannot be read).
  auto db = history::open_store(url, history::store_access::read_only);
  report::report_data data;
  data.source = db->description();
  data.series = db->series({.kernels = options.kernels, .with_samples = false});
  return data;
}

int run_report(const report_options& options) {
  if (!options.files.empty() && !options.db.empty()) {
    throw usage_error("give either result files or --db, not both");
  }
  const std::filesystem::path out(options.out);
  // Before reading anything: a file kbench did not write is never overwritten.
  io::check_replaceable(
      out, fmt::format("<meta name=\"generator\" content=\"{}\">", report::html_report_generator),
      "the HTML report");
  const report::report_data data = options.files.empty() ? read_database(options) : read_files(options);
  const bool any = std::any_of(data.series.begin(), data.series.end(),
                               [](const history::series_history& s) { return !s.points.empty(); });
  if (!any) {
    throw usage_error(fmt::format("no results in {}{}; nothing to report", data.source,
                                  options.kernels.empty() ? "" : " for these kernels"));
  }
  const auto page =
      report::render_html_report(data, {.detector = options.detector, .peak = report::cached_peak});
  io::write_file_atomically(out, page.html);
  fmt::print("wrote {}: {} kernel{}, {} run{}, {} regression{} and {} suspicious in the newest runs\n",
             options.out, page.kernels, page.kernels == 1 ? "" : "s", page.runs, page.runs == 1 ? "" : "s",
             page.regressions, page.regressions == 1 ? "" : "s", page.suspicious);
  return 0;
}

const subcommand_registration report_registration{
    "report",
    "One self-contained HTML page: speedup, latency over time with regression flags, % of peak bandwidth "
    "and the three measures per kernel",
    [](CLI::App& app) {
      auto options = std::make_shared<report_options>();
      app.add_option("files", options->files, "v3 result files (kbench run --output) instead of the history");
      app.add_option(
          "--db", options->db,
          "History database: postgresql://..., sqlite:///path or a file path (default: $KBENCH_DB, "
          "else ~/.local/share/kbench/history.db)");
      app.add_option("--out,-o", options->out, "The HTML file to write")->required();
      app.add_option("--kernel,--op", options->kernels, "Only these kernels, comma-separated")
          ->delimiter(',');
      app.add_option("--window", options->detector.window, "Baseline runs of the regression flags [runs]")
          ->capture_default_str()
          ->check(count_in(5, 100000));
      app.add_option("--threshold", options->detector.threshold, "Minimum change flagged [fraction]")
          ->capture_default_str()
          ->check(number_in(0, 100));
      return [options] { return run_report(*options); };
    }};

}  // namespace
}  // namespace kbench::cli
