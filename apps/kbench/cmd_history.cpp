// `kbench history add|list`: the results history (SQLite file or PostgreSQL server, see history/store.hpp).

#include <kbench/error.hpp>
#include <kbench/history/records.hpp>
#include <kbench/history/store.hpp>
#include <kbench/io/text_table.hpp>

#include "subcommand.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <ctime>
#include <memory>

namespace kbench::cli {
namespace {

struct history_options {
  std::string db;                    // URL; empty = $KBENCH_DB or the default file
  std::vector<std::string> files;    // add: v3 result files
  std::string commit;                // add: the commit that produced them
  std::vector<std::string> kernels;  // list: only these
};

constexpr const char* db_help =
    "History database: postgresql://user@host:port/db, sqlite:///path, or a file path "
    "(default: $KBENCH_DB, else ~/.local/share/kbench/history.db)";

/// "2025-11-30 13:58" (UTC) for a Unix timestamp [s].
std::string utc_time(std::int64_t timestamp) {
  const std::time_t t = static_cast<std::time_t>(timestamp);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%d %H:%M", &tm);
  return text;
}

int history_add(const history_options& options) {
  // Every file is read and checked before anything is stored: one bad file stores nothing.
  std::string commit = options.commit;
  if (commit.empty()) {
    if (const char* sha = std::getenv("GITHUB_SHA"); sha != nullptr) commit = sha;
  }
  std::vector<history::run_records> runs;
  std::size_t records = 0;
  for (const auto& file : options.files) {
    const nlohmann::json doc = history::read_results_file(file);
    records += doc.size();
    auto file_runs = history::runs_from_records(doc, commit);
    runs.insert(runs.end(), std::make_move_iterator(file_runs.begin()),
                std::make_move_iterator(file_runs.end()));
  }
  auto db = history::open_store(options.db);
  const history::add_summary added = db->add(runs);
  fmt::print("stored {} run{} ({} points from {} records) in {}", added.runs_added,
             added.runs_added == 1 ? "" : "s", added.points_added, records, db->description());
  if (added.runs_skipped > 0) {
    fmt::print("; {} run{} already stored, skipped", added.runs_skipped, added.runs_skipped == 1 ? "" : "s");
  }
  fmt::print("\n");
  return 0;
}

int history_list(const history_options& options) {
  auto db = history::open_store(options.db, history::store_access::read_only);
  const auto all = db->series({.kernels = options.kernels, .with_samples = false});
  if (all.empty()) {
    fmt::print("no series in {}{}\n", db->description(), options.kernels.empty() ? "" : " for these kernels");
    return 0;
  }
  io::text_table table(
      {"Kernel", "Shape", "Implementation", "Metric", "Device", "Points", "Latest median", "Latest run"});
  std::size_t points = 0;
  for (const auto& s : all) {
    const auto& latest = s.points.back();
    points += s.points.size();
    table.add_row({s.key.kernel, s.key.shape, s.key.implementation, s.key.metric,
                   fmt::format("{}: {}", s.key.runner_name, s.key.runner_type),
                   std::to_string(s.points.size()), fmt::format("{:.4g}", latest.median),
                   utc_time(latest.run.timestamp)});
  }
  fmt::print("{}", table.render());
  fmt::print("{} series, {} points in {}\n", all.size(), points, db->description());
  return 0;
}

const subcommand_registration history_registration{
    "history", "The results history: store v3 result files, list the series", [](CLI::App& app) {
      auto options = std::make_shared<history_options>();
      app.require_subcommand(1, 1);
      CLI::App* add = app.add_subcommand("add",
                                         "Store v3 result files (one run per host and timestamp; all files "
                                         "in one transaction)");
      add->add_option("files", options->files, "v3 result files (kbench run --output)")->required();
      add->add_option("--db", options->db, db_help);
      add->add_option("--commit", options->commit,
                      "Commit or version that produced the results (default: $GITHUB_SHA, else the records' "
                      "benchmark.extra_info.commit)");
      CLI::App* list =
          app.add_subcommand("list", "The stored series with their point counts and latest medians");
      list->add_option("--kernel,--op", options->kernels, "Only these kernels, comma-separated")
          ->delimiter(',');
      list->add_option("--db", options->db, db_help);
      return [options, add] { return *add ? history_add(*options) : history_list(*options); };
    }};

}  // namespace
}  // namespace kbench::cli
