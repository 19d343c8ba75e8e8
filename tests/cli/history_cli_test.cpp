// CLI tests of `kbench history`, `kbench regressions` and `kbench compare`: exit statuses, messages, JSON.

#include "cli/run_kbench.hpp"
#include "unit/history_test_data.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <fstream>
#include <iterator>

namespace kbench::test {
namespace {

std::filesystem::path write_json(const std::filesystem::path& path, const nlohmann::json& doc) {
  std::ofstream(path) << doc.dump(1) << "\n";
  return path;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

/// Runs of exp at one night apart; runs from `step_at` on are `step` times slower.
std::vector<std::filesystem::path> nightly_files(const std::filesystem::path& dir, int runs, int step_at,
                                                 double step) {
  std::vector<std::filesystem::path> out;
  for (int i = 0; i < runs; ++i) {
    const double scale = i >= step_at ? step : 1.0;
    out.push_back(write_json(dir / ("run" + std::to_string(i) + ".json"),
                             sample_run(1764500000 + 86400 * i, scale, static_cast<std::uint64_t>(100 * i))));
  }
  return out;
}

TEST(HistoryCli, ResultsThatAreNotV3JsonExitWithTwoAndStoreNothing) {
  const auto dir = scratch_dir("history-bad");
  const std::string db = (dir / "h.db").string();
  const auto good = write_json(dir / "good.json", sample_run(1764500000, 1.0));
  std::ofstream(dir / "text.json") << "not json\n";
  write_json(dir / "v2.json", nlohmann::json::array({{{"schema_version", "v2"}}}));
  write_json(dir / "object.json", nlohmann::json::object());

  auto r = run_kbench("history add " + good.string() + " " + (dir / "text.json").string() + " --db " + db);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_EQ(r.output,
            "kbench: " + (dir / "text.json").string() + " is not JSON (expected a list of v3 records)\n");
  r = run_kbench("history add " + (dir / "v2.json").string() + " --db " + db);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.output, "kbench: " + (dir / "v2.json").string() +
                          " is not a list of v3 records: record 0: schema_version is not \"v3\"\n");
  r = run_kbench("history add " + (dir / "object.json").string() + " --db " + db);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.output, "is not a list of v3 records: not a JSON list")) << r.output;
  r = run_kbench("history add " + (dir / "missing.json").string() + " --db " + db);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.output, "kbench: cannot read the results file " + (dir / "missing.json").string() +
                          ": No such file or directory\n");
  // A path that is no file, or one with no end, gets a plain message and is not read into memory whole.
  r = run_kbench("history add " + dir.string() + " --db " + db);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.output, "kbench: the results file " + dir.string() + " is a directory\n");
  r = run_kbench("history add /dev/zero --db " + db);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.output, "/dev/zero holds more than kbench reads (the limit is 512 MiB)"))
      << r.output;
  // A field of the wrong type is refused with its path, not read as 0 (a run of 1970 that the next such file
  // would collide with and be skipped as "already stored").
  nlohmann::json typed = sample_run(1764500000, 1.0);
  typed[1]["timestamp"] = "2026-12-07";
  write_json(dir / "string_time.json", typed);
  r = run_kbench("history add " + good.string() + " " + (dir / "string_time.json").string() + " --db " + db);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_EQ(r.output,
            "kbench: " + (dir / "string_time.json").string() +
                " is not a list of v3 records: record 1: timestamp is \"2026-12-07\", not whole seconds "
                "since 1970\n");
  typed = sample_run(1764500000, 1.0);
  typed[0]["metric"]["name"] = 7;
  write_json(dir / "number_name.json", typed);
  r = run_kbench("history add " + (dir / "number_name.json").string() + " --db " + db);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "record 0: metric.name is 7, not a string")) << r.output;
  EXPECT_FALSE(std::filesystem::exists(db)) << "nothing was stored, not even the good file";
}

TEST(HistoryCli, ADatabaseThatCannotBeReachedExitsWithTwo) {
  const auto dir = scratch_dir("history-unreachable");
  const auto good = write_json(dir / "good.json", sample_run(1764500000, 1.0));
  auto r = run_kbench("history add " + good.string() + " --db postgresql://kbench:secret@127.0.0.1:1/kbench");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(contains(r.output,
                       "kbench: cannot connect to the history database "
                       "postgresql://kbench:***@127.0.0.1:1/kbench: "))
      << r.output;
  EXPECT_FALSE(contains(r.output, "secret"));
  r = run_kbench("regressions --db " + good.string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.output,
            "kbench: cannot open the history database " + good.string() + ": file is not a database\n");
  r = run_kbench("history list --db " + (dir / "no" / "dir" / "h.db").string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.output, "kbench: no history database at ")) << r.output;
  r = run_kbench("history list --db mysql://host/db");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.output, "unsupported history database URL 'mysql://host/db'")) << r.output;
}

// The commands that read (regressions, history list, report) open read-only: a mistyped path fails instead of
// passing as an empty history, and a SQLite file that is not kbench's gets no kbench tables.
TEST(HistoryCli, CommandsThatReadNeverCreateOrChangeADatabase) {
  const auto dir = scratch_dir("history-read-only");
  const auto typo = dir / "histroy.db";
  for (const std::string& command : {std::string("regressions"), std::string("history list"),
                                     "report --out " + (dir / "r.html").string()}) {
    const auto r = run_kbench(command + " --db " + typo.string());
    EXPECT_EQ(r.exit_code, 2) << command << "\n" << r.output;
    EXPECT_TRUE(contains(r.output, "no history database at " + typo.string())) << r.output;
    EXPECT_FALSE(std::filesystem::exists(typo)) << command << " created the database it was to read";
  }
  EXPECT_FALSE(std::filesystem::exists(dir / "r.html"));

  // A SQLite file of someone else's: refused, and left with its own tables only.
  const auto foreign = dir / "notes.db";
  const std::string python = "python3 -c \"import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); ";
  ASSERT_EQ(
      std::system(
          (python + "c.execute('CREATE TABLE notes (x TEXT)'); c.commit()\" " + foreign.string()).c_str()),
      0);
  for (const std::string& command : {std::string("regressions"), std::string("history list")}) {
    const auto r = run_kbench(command + " --db " + foreign.string());
    EXPECT_EQ(r.exit_code, 2) << command << "\n" << r.output;
    EXPECT_TRUE(contains(r.output, foreign.string() + " holds no kbench history")) << r.output;
  }
  const auto tables = dir / "tables.txt";
  ASSERT_EQ(
      std::system((python + "print(sorted(r[0] for r in c.execute('SELECT name FROM sqlite_master')))\" " +
                   foreign.string() + " > " + tables.string())
                      .c_str()),
      0);
  std::ifstream in(tables);
  std::string listed;
  std::getline(in, listed);
  EXPECT_EQ(listed, "['notes']");

  // A real history reads as before.
  const auto good = write_json(dir / "good.json", sample_run(1764500000, 1.0));
  const std::string db = (dir / "h.db").string();
  ASSERT_EQ(run_kbench("history add " + good.string() + " --db " + db).exit_code, 0);
  const auto listed_runs = run_kbench("history list --db " + db);
  EXPECT_EQ(listed_runs.exit_code, 0) << listed_runs.output;
  EXPECT_TRUE(contains(listed_runs.output, "exp")) << listed_runs.output;
}

TEST(HistoryCli, AddTwiceSkipsTheStoredRunAndListShowsTheSeries) {
  const auto dir = scratch_dir("history-list");
  const auto files = nightly_files(dir, 2, 99, 1.0);
  const std::string db = " --db sqlite://" + (dir / "h.db").string();
  auto r = run_kbench("history add " + files[0].string() + " " + files[1].string() + db + " --commit c0ffee");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "stored 2 runs (28 points from 28 records) in " + (dir / "h.db").string() + "\n");
  r = run_kbench("history add " + files[1].string() + db);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_TRUE(contains(r.output, "stored 0 runs (0 points from 14 records)")) << r.output;
  EXPECT_TRUE(contains(r.output, "1 run already stored, skipped")) << r.output;

  r = run_kbench("history list --kernel exp" + db);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(
      contains(r.output, "exp    | [1024] | kbench-cpu     | latency_ms    | cpu: Test CPU   | 2      |"))
      << r.output;
  EXPECT_TRUE(contains(r.output, "14 series, 28 points in ")) << r.output;
  r = run_kbench("history list --kernel softmax" + db);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_TRUE(contains(r.output, "no series in ")) << r.output;
}

TEST(HistoryCli, KbenchDbNamesTheDefaultDatabase) {
  const auto dir = scratch_dir("history-env");
  const auto files = nightly_files(dir, 1, 99, 1.0);
  const std::string env = "KBENCH_DB=" + (dir / "env.db").string() + " ";
  ASSERT_EQ(run_kbench_env(env, "history add " + files[0].string()).exit_code, 0);
  EXPECT_TRUE(std::filesystem::exists(dir / "env.db"));
  EXPECT_TRUE(contains(run_kbench_env(env, "history list").output, "14 series, 14 points"));
}

TEST(HistoryCli, RegressionsSaysInsufficientDataThenFindsAStepAndExitsWithOne) {
  const auto dir = scratch_dir("history-regressions");
  const auto files = nightly_files(dir, 10, 8, 1.3);  // 8 nights at 1x, then 2 nights 30% slower
  const std::string db = " --db " + (dir / "h.db").string();
  for (int i = 0; i < 3; ++i) ASSERT_EQ(run_kbench("history add " + files[i].string() + db).exit_code, 0);
  auto r = run_kbench("regressions" + db);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "insufficient data | exp    | [1024] |")) << r.output;
  EXPECT_TRUE(contains(r.output, ": 0 regressions, 0 suspicious, 0 improvements, 14 insufficient data, 0 ok"))
      << r.output;

  for (int i = 3; i < 8; ++i) ASSERT_EQ(run_kbench("history add " + files[i].string() + db).exit_code, 0);
  r = run_kbench("regressions" + db);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, ": 0 regressions, 0 suspicious, 0 improvements, 0 insufficient data, 14 ok"))
      << r.output;

  ASSERT_EQ(run_kbench("history add " + files[8].string() + db).exit_code, 0);
  r = run_kbench("regressions" + db);
  EXPECT_EQ(r.exit_code, 0) << "one slow night is only suspicious\n" << r.output;
  EXPECT_TRUE(contains(r.output, "suspicious regression | exp")) << r.output;

  ASSERT_EQ(run_kbench("history add " + files[9].string() + db).exit_code, 0);
  const auto json_path = dir / "regressions.json";
  r = run_kbench("regressions --json " + json_path.string() + db);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  // Latencies went up 30% and kbench's speedup (higher is better) went down: both are regressions.
  EXPECT_TRUE(contains(r.output, "regression | exp    | [1024] | kbench-cpu     | latency_ms")) << r.output;
  EXPECT_TRUE(contains(r.output, "regression | exp    | [1024] | kbench-cpu     | speedup")) << r.output;
  EXPECT_TRUE(contains(r.output, "+30.")) << r.output;
  std::ifstream in(json_path);
  const auto report = nlohmann::json::parse(in);
  EXPECT_EQ(report["regression_found"], true);
  EXPECT_EQ(report["window"], 20);
  ASSERT_EQ(report["series"].size(), 14u);
  std::size_t regressions = 0;
  for (const auto& s : report["series"]) {
    if (s["status"] == "regression") ++regressions;
    if (s["metric"] == "accuracy") {
      EXPECT_EQ(s["status"], "ok");
    }
  }
  EXPECT_EQ(regressions, 10u) << "latency and throughput of both implementations at 2 shapes, and 2 speedups";
}

TEST(HistoryCli, RegressionsRefusesAWindowBelowTheMinimumHistory) {
  const auto r = run_kbench("regressions --window 3 --db /tmp/unused.db");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "--window: 3 is out of range (valid: 5 to 100000)")) << r.output;
  // NaN passes every comparison: it is refused as not a number, in every command that takes one.
  for (const std::string& args : std::vector<std::string>{
           "regressions --threshold nan", "regressions --confidence nan",
           "report --out /tmp/unused.html --threshold nan", "compare a.json b.json --alpha nan",
           "compare a.json b.json --min-effect -0.5", "tune --simulate x.json --runs -1",
           "measure --kernel exp --shape-index 0 --repeat 2147483647"}) {
    const auto bad = run_kbench(args);
    EXPECT_EQ(bad.exit_code, 2) << args << "\n" << bad.output;
    EXPECT_TRUE(contains(bad.output, "is not a finite number") || contains(bad.output, "is out of range"))
        << args << "\n"
        << bad.output;
  }
}

// regressions --json, compare --json and report --out replace only a file kbench wrote: one of someone
// else's is refused before anything runs and left as it was.
TEST(HistoryCli, AnOutputFileKbenchDidNotWriteIsNeverOverwritten) {
  const auto dir = scratch_dir("history-replace");
  const std::string db = (dir / "h.db").string();
  const auto runs = nightly_files(dir, 3, 99, 1.0);
  for (const auto& f : runs) ASSERT_EQ(run_kbench("history add " + f.string() + " --db " + db).exit_code, 0);
  const std::string foreign_text = "{\"notes\": \"mine\"}\n";
  struct target {
    std::string file, command;
  };
  for (const target& t :
       {target{"regressions.json", "regressions --db " + db + " --json "},
        target{"compare.json", "compare " + runs[0].string() + " " + runs[1].string() + " --json "},
        target{"report.html", "report --db " + db + " --out "}}) {
    const auto path = dir / t.file;
    std::ofstream(path) << foreign_text;
    auto r = run_kbench(t.command + path.string());
    EXPECT_EQ(r.exit_code, 2) << t.command << "\n" << r.output;
    EXPECT_TRUE(contains(r.output, path.string() + " exists and was not written by kbench")) << r.output;
    std::ifstream in(path);
    EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), foreign_text) << t.file;
    // Its own file kbench replaces, run after run.
    std::filesystem::remove(path);
    for (int i = 0; i < 2; ++i) {
      r = run_kbench(t.command + path.string());
      EXPECT_NE(r.exit_code, 2) << t.command << " (run " << i + 1 << ")\n" << r.output;
    }
  }
}

TEST(HistoryCli, CompareReportsFasterAndSlowerWithTheGeomeanOfCommonSeries) {
  const auto dir = scratch_dir("compare");
  nlohmann::json base = sample_run(1764500000, 1.0, 1);
  nlohmann::json newer = sample_run(1764586400, 0.8, 2);
  const auto base_path = write_json(dir / "base.json", base);
  const auto new_path = write_json(dir / "new.json", newer);
  const auto json_path = dir / "compare.json";
  const auto r =
      run_kbench("compare " + base_path.string() + " " + new_path.string() + " --json " + json_path.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "| latency_ms    |")) << r.output;
  EXPECT_TRUE(contains(r.output, "| 10/10   | faster")) << r.output;
  EXPECT_TRUE(contains(r.output, "| 3/3     | not enough samples")) << r.output;  // throughput: 3 samples
  EXPECT_TRUE(contains(r.output, "geometric mean new/base latency_ms: 0.8")) << r.output;
  EXPECT_TRUE(contains(r.output, "over 4 series present in both files")) << r.output;
  std::ifstream in(json_path);
  const auto doc = nlohmann::json::parse(in);
  EXPECT_EQ(doc["series"].size(), 8u);
  EXPECT_EQ(doc["alpha"], 0.05);
}

TEST(HistoryCli, CompareWithABadFileExitsWithTwo) {
  const auto dir = scratch_dir("compare-bad");
  const auto good = write_json(dir / "good.json", sample_run(1764500000, 1.0));
  std::ofstream(dir / "bad.json") << "[1, 2]\n";
  auto r = run_kbench("compare " + good.string() + " " + (dir / "bad.json").string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.output, "kbench: " + (dir / "bad.json").string() +
                          " is not a list of v3 records: record 0: not an object\n");
  r = run_kbench("compare " + good.string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
}

}  // namespace
}  // namespace kbench::test
