// `kbench regressions`: judges the newest run of every series in the history (see history/detector.hpp);
// exit status 1 when a regression is found, so that a nightly job can alert.

#include <kbench/error.hpp>
#include <kbench/history/regressions.hpp>
#include <kbench/history/store.hpp>
#include <kbench/io/atomic_file.hpp>
#include <kbench/io/json_v3.hpp>
#include <kbench/io/replaceable_file.hpp>
#include <kbench/io/text_table.hpp>

#include "numeric_option.hpp"
#include "subcommand.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>

namespace kbench::cli {
namespace {

struct regressions_options {
  std::string db;
  std::vector<std::string> kernels;
  history::detector_options detector;
  std::string json_path;
  bool all = false;  // also list the series that are ok
};

/// Table order: what needs attention first.
int rank(history::verdict v) {
  switch (v) {
    case history::verdict::regression:
      return 0;
    case history::verdict::suspicious_regression:
      return 1;
    case history::verdict::improvement:
      return 2;
    case history::verdict::suspicious_improvement:
      return 3;
    case history::verdict::insufficient_data:
      return 4;
    case history::verdict::ok:
      return 5;
  }
  return 6;
}

int run_regressions(const regressions_options& options) {
  // Before reading anything: a file kbench did not write is never overwritten.
  if (!options.json_path.empty()) {
    io::check_replaceable(options.json_path,
                          fmt::format("\"generator\": \"{}\"", history::regressions_generator),
                          "the regressions report");
  }
  // Read-only: a mistyped path must fail (exit 2), not pass as an empty history with no regressions.
  auto db = history::open_store(options.db, history::store_access::read_only);
  const auto series = db->series({.kernels = options.kernels, .with_samples = false});
  auto verdicts = history::find_regressions(series, options.detector);
  if (!options.json_path.empty()) {
    io::write_file_atomically(options.json_path, history::to_json(verdicts, options.detector).dump(2) + "\n");
  }
  std::stable_sort(verdicts.begin(), verdicts.end(), [](const auto& a, const auto& b) {
    return rank(a.result.status) < rank(b.result.status);
  });
  io::text_table table({"Status", "Kernel", "Shape", "Implementation", "Metric", "Device", "Runs", "Newest",
                        "Baseline", "Change", "Interval"});
  std::map<history::verdict, std::size_t> counts;
  std::size_t shown = 0;
  for (const auto& v : verdicts) {
    ++counts[v.result.status];
    if (!options.all && v.result.status == history::verdict::ok) continue;
    ++shown;
    const auto& r = v.result;
    const bool judged = r.status != history::verdict::insufficient_data;
    table.add_row({std::string(to_string(r.status)), v.key.kernel, v.key.shape, v.key.implementation,
                   v.key.metric, fmt::format("{}: {}", v.key.runner_name, v.key.runner_type),
                   std::to_string(v.runs), judged ? fmt::format("{:.4g}", r.newest) : "",
                   judged ? fmt::format("{:.4g}", r.baseline) : "",
                   judged ? fmt::format("{:+.1f}%", r.change * 100) : "",
                   judged ? fmt::format("[{:.4g}, {:.4g}]", r.lower, r.upper) : ""});
  }
  if (shown > 0) fmt::print("{}", table.render());
  using history::verdict;
  fmt::print(
      "{} series in {}: {} regression{}, {} suspicious, {} improvement{}, {} insufficient data, {} ok\n",
      verdicts.size(), db->description(), counts[verdict::regression],
      counts[verdict::regression] == 1 ? "" : "s",
      counts[verdict::suspicious_regression] + counts[verdict::suspicious_improvement],
      counts[verdict::improvement], counts[verdict::improvement] == 1 ? "" : "s",
      counts[verdict::insufficient_data], counts[verdict::ok]);
  fmt::print(
      "(newest run against the {} runs before the two newest: {:g}% prediction interval on log values, "
      "minimum change {:g}%, a regression needs both newest runs worse)\n",
      options.detector.window, options.detector.confidence * 100, options.detector.threshold * 100);
  if (!options.json_path.empty()) fmt::print("wrote {}\n", options.json_path);
  return history::any_regression(verdicts) ? 1 : 0;
}

const subcommand_registration regressions_registration{
    "regressions", "Flag series whose newest runs regressed beyond noise (exit status 1 when one did)",
    [](CLI::App& app) {
      auto options = std::make_shared<regressions_options>();
      app.add_option(
          "--db", options->db,
          "History database: postgresql://..., sqlite:///path or a file path (default: $KBENCH_DB, "
          "else ~/.local/share/kbench/history.db)");
      app.add_option("--kernel,--op", options->kernels, "Only these kernels, comma-separated")
          ->delimiter(',');
      app.add_option("--window", options->detector.window, "Baseline runs before the two newest [runs]")
          ->capture_default_str()
          ->check(count_in(5, 100000));
      app.add_option("--threshold", options->detector.threshold, "Minimum change to report [fraction]")
          ->capture_default_str()
          ->check(number_in(0, 100));
      app.add_option("--confidence", options->detector.confidence, "Coverage of the prediction interval")
          ->capture_default_str()
          ->check(number_in(0.5, 0.999999));
      app.add_option("--json", options->json_path, "Write the report as JSON to this file");
      app.add_flag("--all", options->all, "Also list the series that are ok");
      return [options] { return run_regressions(*options); };
    }};

}  // namespace
}  // namespace kbench::cli
