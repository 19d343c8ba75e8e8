// CLI tests of `kbench run`: selection flags, summary totals, exit statuses, v3 JSON, failure isolation.

#include "cli/cpu_hogs.hpp"
#include "cli/run_kbench.hpp"
#include "cli/stop_signals.hpp"
#include "support/v3_schema.hpp"

#include <kbench/backends/cpu.hpp>
#include <kbench/io/run_marks.hpp>
#include <kbench/stats.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

namespace kbench::test {
namespace {

// Every run shares one calibration cache so that only the first test pays for `kbench calibrate`.
const std::string env =
    "KBENCH_CACHE_DIR=" + (std::filesystem::temp_directory_path() / "kbench-cli-test-cache").string() + " ";

process_result run(const std::string& args) {
  return run_kbench_env(env, "run " + args);
}

nlohmann::json read_json(const std::filesystem::path& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

TEST(CliRun, RunsTheSelectedShapesAndPrintsTotalsPerShape) {
  const auto r = run("--kernel exp --backend cpu --num-shapes 2 --target-ms 5");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* column :
       {"Kernel", "Shape", "Status", "kbench (ms)", "torch (ms)", "Speedup", "Interval", "% peak BW"}) {
    EXPECT_NE(r.output.find(column), std::string::npos) << column;
  }
  EXPECT_NE(r.output.find("exp    | [1024] "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("exp    | [4096] "), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("[16384]"), std::string::npos) << r.output;
  // The geometric mean leaves out the speedups of shapes timed on a busy machine.
  EXPECT_TRUE(std::regex_search(
      r.output,
      std::regex(
          R"(Total: 2/2 shapes passed; (geometric-mean speedup [0-9.]+x over [12] shapes|no geometric-mean speedup \(every speedup was timed on a busy machine\)))")))
      << r.output;
  EXPECT_NE(r.output.find("exp: at::exp_out into a preallocated output"), std::string::npos) << r.output;
  // Each speedup's interval and verdict, and the count of verdicts over the two shapes.
  EXPECT_TRUE(std::regex_search(
      r.output, std::regex(R"(\| [0-9.]+x +\| [0-9.]+-[0-9.]+ (faster|same|slower|unreliable) )")))
      << r.output;
  std::smatch counts;
  ASSERT_TRUE(std::regex_search(
      r.output, counts,
      std::regex(
          R"(Against torch: ([0-9]+) faster, ([0-9]+) same within noise, ([0-9]+) slower, ([0-9]+) unreliable)")))
      << r.output;
  EXPECT_EQ(std::stoi(counts[1]) + std::stoi(counts[2]) + std::stoi(counts[3]) + std::stoi(counts[4]), 2)
      << r.output;
  // Whether the machine was quiet, and when it was not, which shapes it disturbed.
  EXPECT_TRUE(std::regex_search(
      r.output,
      std::regex(R"(Machine: (quiet while every shape was timed|[12] of 2 timed shapes were disturbed))")))
      << r.output;
  // The % peak BW footnote says which calibration it divides by, and when that was measured.
  EXPECT_TRUE(std::regex_search(
      r.output,
      std::regex(
          R"(against the cpu triad of [0-9.]+ GB/s with\n(normal|non-temporal) stores, the best of )"
          R"([0-9]+ calibrations? from the last 30 days\n\((the best of 5 rounds, the worst [0-9.]+ GB/s; )?)"
          R"((kbench calibrate|same-turns triad beside [a-z_]+ \[[0-9,]+\]) on )"
          R"(20[0-9]{2}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2} UTC)")))
      << r.output;
  // exp [1024] and [4096] move a few KiB per call: the caches serve them, and no % of the memory's peak is
  // printed for them.
  EXPECT_TRUE(std::regex_search(r.output, std::regex(R"(exp +\| \[1024\] .*\| cache +\| -\n)"))) << r.output;
  EXPECT_NE(r.output.find("cache in % peak BW: 2 shapes served by the caches"), std::string::npos)
      << r.output;
  // Shapes of a few KiB time no triad beside them.
  EXPECT_TRUE(std::regex_search(r.output, std::regex(R"(exp +\| \[1024\] .*\| -\n)"))) << r.output;
  EXPECT_EQ(r.output.find("% triad: "), std::string::npos) << r.output;
}

// A triad timed beside a shape that goes above the cached peak shows that the peak was calibrated in a busy
// stretch: the run raises it, says so, divides by the raised one, and caches it for the next run.
TEST(CliRun, ATriadAboveTheCalibratedPeakRaisesIt) {
  const auto dir = scratch_dir("run-raise-peak");
  const auto device = kbench::cpu::open_device()->info().name;
  const auto now =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
          .count();
  // A peak of 0.5 GB/s: any triad beats it.
  std::ofstream(dir / "calibration.json") << nlohmann::json{{"cpu|" + device,
                                                             {{"backend", "cpu"},
                                                              {"device", device},
                                                              {"elements", 1024},
                                                              {"copy_gbps", 0.4},
                                                              {"triad_gbps", 0.5},
                                                              {"triad_stores", "non-temporal"},
                                                              {"timestamp", now}}}};
  const auto r =
      run_kbench_env("KBENCH_CACHE_DIR=" + dir.string() + " ",
                     "run --kernel exp --backend cpu --shape-index 2 --target-ms 5 --triad-min-mib 0.01");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(std::regex_search(
      r.output,
      std::regex(R"(the triad timed beside exp \[16384\] reached [0-9.]+ GB/s, above the calibrated )"
                 R"(peak of 0.5 GB/s: the peak is raised to it)")))
      << r.output;
  EXPECT_NE(r.output.find("the best of 2 calibrations from the last 30 days\n(same-turns triad beside exp "
                          "[16384] on "),
            std::string::npos)
      << r.output;
  const auto cache = read_json(dir / "calibration.json");
  const auto& history = cache.at("cpu|" + device).at("history");
  ASSERT_EQ(history.size(), 2U) << cache.dump();
  EXPECT_GT(history.at(1).at("triad_gbps").get<double>(), 0.5);
  EXPECT_EQ(history.at(1).at("source"), "same-turns triad beside exp [16384]");
}

TEST(CliRun, ALargeShapeIsComparedWithATriadTimedInItsTurns) {
  const auto dir = scratch_dir("run-triad");
  const auto json = dir / "r.json";
  // exp [16777216] moves 128 MiB per call; the size rule is given, so that a machine whose last-level cache
  // is larger than 32 MiB runs the same test.
  const auto r = run("--kernel exp --backend cpu --shape-index 6 --target-ms 5 --triad-min-mib 64 --output " +
                     json.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // The % triad cell: the share, and the GB/s of the triad it was taken against. (% peak BW says "cache"
  // when kbench beat the calibrated peak, as it can while other work slows the calibration's triad.)
  std::smatch cell;
  ASSERT_TRUE(std::regex_search(
      r.output, cell,
      std::regex(R"(exp +\| \[16777216\] .*\| (?:[0-9]+%|cache) +\| ([0-9]+)% of ([0-9]+) GB/s *\n)")))
      << r.output;
  const double shown_percent = std::stod(cell[1].str());
  const double shown_triad_gbps = std::stod(cell[2].str());
  EXPECT_NE(r.output.find("% triad: shapes moving >= 64 MiB per call only"), std::string::npos) << r.output;
  int bandwidth_records = 0;
  double kbench_gbps = 0;
  for (const auto& rec : read_json(json)) {
    if (rec.at("metric").at("name") != "bandwidth_gbps") continue;
    ++bandwidth_records;
    kbench_gbps = rec.at("metric").at("benchmark_values").at(0);
    const auto& extra = rec.at("metric").at("extra_info");
    EXPECT_GT(test::extra_number(extra, "triad_same_turns_gbps"), 0) << extra;
    const std::string stores = extra.at("triad_same_turns_stores");
    EXPECT_TRUE(stores == "normal" || stores == "non-temporal") << stores;
  }
  EXPECT_EQ(bandwidth_records, 1);
  // The share of that triad, as its own metric: kbench's GB/s over the triad's.
  int share_records = 0;
  for (const auto& rec : read_json(json)) {
    const auto& metric = rec.at("metric");
    if (metric.at("name") != "triad_fraction") continue;
    ++share_records;
    const double share = metric.at("benchmark_values").at(0);
    const double triad_gbps = test::extra_number(metric.at("extra_info"), "triad_same_turns_gbps");
    EXPECT_GT(triad_gbps, 0) << metric;
    EXPECT_NEAR(share, kbench_gbps / triad_gbps, 1e-9 * share) << metric;
    EXPECT_NEAR(shown_percent, 100 * share, 0.5) << metric;  // the table rounds to whole numbers
    EXPECT_NEAR(shown_triad_gbps, triad_gbps, 0.5) << metric;
  }
  EXPECT_EQ(share_records, 1);
}

TEST(CliRun, AComputeBoundShapeIsShownInGflopsWithoutATriad) {
  const auto dir = scratch_dir("run-gflops");
  const auto json = dir / "r.json";
  // bmm [8,256,256,256] moves 6 MiB per call, above the size rule given here, but does 43 flop per byte.
  const auto r = run("--kernel bmm --backend cpu --shape-index 0 --target-ms 5 --triad-min-mib 1 --output " +
                     json.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(
      std::regex_search(r.output, std::regex(R"(bmm +\| \[8,256,256,256\] .*\| [0-9]+ GFLOP/s +\| -\n)")))
      << r.output;
  EXPECT_NE(r.output.find("GFLOP/s in the % peak BW column: compute-bound shapes (>= 4 flop per byte moved)"),
            std::string::npos)
      << r.output;
  double median_ms = 0;
  double gflops = 0;
  int gflops_records = 0;
  for (const auto& rec : read_json(json)) {
    const auto& metric = rec.at("metric");
    EXPECT_NE(metric.at("name"), "triad_fraction") << rec;
    if (rec.at("model").at("backend") != "kbench-cpu") continue;
    if (metric.at("name") == "latency_ms") {
      median_ms = summarize(metric.at("benchmark_values").get<std::vector<double>>()).median;
    }
    if (metric.at("name") == "gflops") {
      ++gflops_records;
      gflops = metric.at("benchmark_values").at(0);
      EXPECT_DOUBLE_EQ(test::extra_number(metric.at("extra_info"), "flops"), 2.0 * 8 * 256 * 256 * 256);
    }
  }
  EXPECT_EQ(gflops_records, 1);
  ASSERT_GT(median_ms, 0);
  EXPECT_NEAR(gflops, 2.0 * 8 * 256 * 256 * 256 / (median_ms * 1e-3) / 1e9, 1e-9 * gflops);
}

TEST(CliRun, ShapeIndexSelectsOneShapePerKernelAndOpIsAnAlias) {
  const auto r = run("--op exp --backend cpu --shape-index 1 --target-ms 5");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("Total: 1/1 shapes passed"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("[4096]"), std::string::npos) << r.output;
}

TEST(CliRun, ImplTorchTimesOnlyTheBaseline) {
  const auto dir = scratch_dir("run-impl");
  const auto json = dir / "r.json";
  const auto r =
      run("--kernel exp --backend cpu --num-shapes 1 --impl torch --target-ms 5 --output " + json.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const auto& rec : read_json(json)) EXPECT_EQ(rec.at("model").at("backend"), "torch");
}

TEST(CliRun, TheSeedChangesTheInputsAndIsRecorded) {
  // Different seeds give different inputs, hence different (but both accurate) torch results: the accuracy
  // errors of the cpu implementation differ between seeds while each run passes.
  const auto dir = scratch_dir("run-seed");
  auto errors_for = [&](int seed) {
    const auto json = dir / ("s" + std::to_string(seed) + ".json");
    const auto r = run("--kernel exp --backend cpu --shape-index 3 --impl kbench --target-ms 5 --seed " +
                       std::to_string(seed) + " --output " + json.string());
    EXPECT_EQ(r.exit_code, 0) << r.output;
    for (const auto& rec : read_json(json)) {
      if (rec.at("metric").at("name") == "accuracy") return rec.at("metric").at("extra_info").dump();
    }
    return std::string();
  };
  EXPECT_EQ(errors_for(1), errors_for(1));
  EXPECT_NE(errors_for(1), errors_for(2));
}

TEST(CliRun, ListKernelsFlagListsAndExits) {
  const auto r = run("--list-kernels");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("exp"), std::string::npos);
  EXPECT_EQ(r.output.find("Total:"), std::string::npos);
}

TEST(CliRun, BadInputExitsWithTwoAndNamesTheValidChoices) {
  struct bad_case {
    std::string args, message;
  };
  const std::vector<bad_case> cases{
      {"--kernel nope", "unknown kernel 'nope' (valid: "},
      {"--backend tpu", "unknown backend 'tpu' (valid: auto, cpu, opencl, cuda)"},
      {"--impl triton", "unknown implementation 'triton' (valid: kbench, torch)"},
      {"--kernel exp --shape-index 99", "shape index 99 out of range (valid: 0.."},
      {"--atol abc", "--atol must be a non-negative number, got 'abc'"},
      {"--rtol -1", "--rtol must be a non-negative number, got '-1'"},
      {"--effort extreme", "unknown effort 'extreme' (valid: none"},
      {"--num-shapes 0", "--num-shapes: 0 is out of range (valid: 1 to 1000000)"},
      {"--triad-min-mib -1", "--triad-min-mib: -1 is out of range (valid: 0 to 1000000000)"},
      // Every number is checked when it is parsed: NaN, infinities, negatives into unsigned options, and
      // counts without a bound.
      {"--target-ms nan", "--target-ms: 'nan' is not a finite number (valid: 0.001 to 600000)"},
      {"--target-ms 1e400", "--target-ms: '1e400' is not a finite number"},
      {"--tune-target-ms nan", "--tune-target-ms: 'nan' is not a finite number"},
      {"--max-evals -1", "--max-evals: -1 is out of range (valid: 1 to 10000000)"},
      {"--max-evals 2.5", "--max-evals: '2.5' is not a whole number"},
      {"--time-budget nan", "--time-budget: 'nan' is not a finite number"},
      {"--seed -1", "--seed: -1 is out of range (valid: 0 to "},
      {"--timeout-per-kernel 0", "--timeout-per-kernel: 0 is out of range"},
      {"--retime-within inf", "--retime-within: 'inf' is not a finite number"},
      {"--min-effect nan", "--min-effect: 'nan' is not a finite number"},
      {"--require-quiet -3", "--require-quiet: -3 is out of range (valid: 0 to 3600)"},
  };
  for (const auto& c : cases) {
    const auto r = run(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args << "\n" << r.output;
    EXPECT_NE(r.output.find(c.message), std::string::npos) << c.args << "\n" << r.output;
  }
}

TEST(CliRun, WritesOneV3RecordPerImplementationAndMetric) {
  const auto dir = scratch_dir("run-json");
  const auto json = dir / "r.json";
  const auto r = run("--kernel exp --backend opencl --num-shapes 1 --target-ms 5 --output " + json.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto records = read_json(json);
  std::set<std::pair<std::string, std::string>> seen;
  for (const auto& rec : records) {
    EXPECT_EQ(rec.at("schema_version"), "v3");
    for (const char* key : {"timestamp", "benchmark", "model", "metric", "runners"}) {
      EXPECT_TRUE(rec.contains(key)) << key;
    }
    EXPECT_EQ(rec.at("benchmark").at("extra_info").at("effort"), "none");
    EXPECT_EQ(rec.at("model").at("type"), "kernel");
    const std::string backend = rec.at("model").at("backend");
    EXPECT_TRUE(seen.insert({backend, rec.at("metric").at("name")}).second) << backend;
    // runners[0] as the hub means it: the runner and the device; kbench's backend in its extra_info.
    EXPECT_EQ(rec.at("runners")[0].at("extra_info").at("backend"), backend == "torch" ? "torch" : "opencl");
    EXPECT_EQ(rec.at("runners")[0].at("type"), rec.at("benchmark").at("extra_info").at("device"));
    const auto errors = test::v3_schema_errors(rec);
    EXPECT_TRUE(errors.empty()) << rec.dump() << "\n" << (errors.empty() ? "" : errors.front());
  }
  const std::set<std::pair<std::string, std::string>> expected{{"kbench-opencl", "accuracy"},
                                                               {"kbench-opencl", "latency_ms"},
                                                               {"kbench-opencl", "throughput_ms"},
                                                               {"kbench-opencl", "device_ms"},
                                                               {"kbench-opencl", "capture_ratio"},
                                                               {"kbench-opencl", "speedup"},
                                                               {"kbench-opencl", "bandwidth_gbps"},
                                                               {"torch", "accuracy"},
                                                               {"torch", "latency_ms"},
                                                               {"torch", "throughput_ms"},
                                                               {"torch", "device_ms"},
                                                               {"torch", "capture_ratio"},
                                                               {"kbench-opencl", "machine_disturbed"},
                                                               {"kbench-opencl", "speedup_verdict"},
                                                               {"kbench-opencl", "served_from_cache"},
                                                               {"torch", "machine_disturbed"}};
  EXPECT_EQ(seen, expected);
  for (const auto& rec : records) {
    if (rec.at("metric").at("name") != "speedup") continue;
    const auto& extra = rec.at("metric").at("extra_info");
    const double ratio = rec.at("metric").at("benchmark_values")[0];
    EXPECT_LE(test::extra_number(extra, "interval_low"), ratio) << extra;
    EXPECT_GE(test::extra_number(extra, "interval_high"), ratio) << extra;
    const std::string verdict = extra.at("verdict");
    EXPECT_TRUE(verdict == "faster" || verdict == "same" || verdict == "slower" || verdict == "unreliable")
        << verdict;
    // An unreliable verdict comes from a shape timed on a busy machine, which its records say.
    const auto& machine = rec.at("benchmark").at("extra_info").at("machine");
    EXPECT_EQ(verdict == "unreliable", machine == "disturbed") << machine;
    // The same verdict as a metric of its own, which the history keeps and the report draws.
    const auto mark = std::find_if(records.begin(), records.end(), [&](const nlohmann::json& other) {
      return other.at("metric").at("name") == "speedup_verdict" && other.at("inputs") == rec.at("inputs");
    });
    ASSERT_NE(mark, records.end());
    EXPECT_EQ(mark->at("metric").at("benchmark_values")[0].get<double>(), io::verdict_code(verdict).value());
  }
}

TEST(CliRun, RequireQuietFailsAShapeWhileEveryCpuIsBusy) {
  const auto json = scratch_dir("run-require-quiet") / "r.json";
  process_result r;
  {
    const cpu_hogs hogs;
    r = run_kbench(
        "run --kernel exp --num-shapes 1 --backend cpu --require-quiet 1 --target-ms 10 --output " +
        json.string());
  }
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(
      r.output.find("invalid timing: the machine was still busy after waiting 1 s for it (--require-quiet): "
                    "other processes used"),
      std::string::npos)
      << r.output;
  for (const auto& rec : nlohmann::json::parse(std::ifstream(json))) {
    EXPECT_EQ(rec.at("metric").at("name"), "accuracy") << "nothing timed: " << rec.dump();
  }
}

TEST(CliRun, AppendsToAValidFileAndRefusesAnInvalidOne) {
  const auto dir = scratch_dir("run-append");
  const auto json = dir / "r.json";
  const std::string args =
      "--kernel exp --backend cpu --num-shapes 1 --target-ms 5 --output " + json.string();
  ASSERT_EQ(run(args).exit_code, 0);
  const auto first = read_json(json).size();
  ASSERT_EQ(run(args).exit_code, 0);
  EXPECT_EQ(read_json(json).size(), 2 * first);

  std::ofstream(json, std::ios::trunc) << "[1, 2";
  const auto r = run(args);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("refusing to overwrite it"), std::string::npos) << r.output;
  std::ifstream in(json);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), "[1, 2");
}

// The torch baseline runs with the fastest of its settings (thread count x libgomp spin count), tuned once
// per shape and cached; the summary, the records and the worker's environment say which.
TEST(CliRun, TheTorchBaselineRunsWithItsFastestSettingTunedOnceAndCached) {
  const auto dir = std::filesystem::temp_directory_path() / "kbench-cli-baseline-setting";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string cache_env = "KBENCH_CACHE_DIR=" + (dir / "cache").string() + " env -u GOMP_SPINCOUNT ";
  const auto out = dir / "run.json";
  const auto first = run_kbench_env(
      cache_env, "run --kernel exp --shape-index 0 --impl torch --target-ms 5 --output " + out.string());
  ASSERT_EQ(first.exit_code, 0) << first.output;
  std::smatch chosen;
  ASSERT_TRUE(std::regex_search(first.output, chosen,
                                std::regex(R"(\| ([0-9]+) threads?, spin (10000|300000) +\| -)")))
      << first.output;
  EXPECT_NE(first.output.find("per shape (1 tuned now in"), std::string::npos) << first.output;

  // The cache entry logs every setting timed; the chosen one is the fastest of them.
  nlohmann::json entry;
  for (const auto& f : std::filesystem::recursive_directory_iterator(dir / "cache" / "tuning" / "exp")) {
    entry = read_json(f.path());
  }
  ASSERT_EQ(entry.at("key").at("backend"), "torch") << entry.dump();
  const auto& log = entry.at("log");
  ASSERT_GE(log.size(), 4U) << entry.dump();  // 1 and 2+ threads, each with two spin counts
  double fastest = 1e300;
  nlohmann::json fastest_config;
  std::set<std::int64_t> spins;
  for (const auto& e : log) {
    spins.insert(e.at("config").at("spin").get<std::int64_t>());
    if (e.at("status") == "ok" && e.at("time_ms").get<double>() < fastest) {
      fastest = e.at("time_ms").get<double>();
      fastest_config = e.at("config");
    }
  }
  EXPECT_EQ(spins, (std::set<std::int64_t>{10000, 300000}));
  EXPECT_EQ(entry.at("best"), fastest_config) << entry.dump();
  EXPECT_EQ(std::to_string(fastest_config.at("threads").get<int>()), chosen[1].str());
  EXPECT_EQ(std::to_string(fastest_config.at("spin").get<int>()), chosen[2].str());

  // The records name the setting, and the worker really ran with that spin count (the device's platform).
  bool latency_seen = false;
  for (const auto& rec : read_json(out)) {
    const auto errors = test::v3_schema_errors(rec);  // the hub's table, every field with its type
    EXPECT_TRUE(errors.empty()) << rec.dump() << "\n" << (errors.empty() ? "" : errors.front());
    if (rec.at("metric").at("name") != "latency_ms") continue;
    latency_seen = true;
    const auto& extra = rec.at("benchmark").at("extra_info");
    EXPECT_EQ(extra.at("torch_threads"), chosen[1].str()) << rec.dump();
    EXPECT_EQ(extra.at("gomp_spincount"), chosen[2].str()) << rec.dump();
    EXPECT_EQ(extra.at("torch_setting_source"), "tuned") << rec.dump();
    EXPECT_EQ(extra.at("config"), "{\"threads\":" + chosen[1].str() + "}") << rec.dump();
    EXPECT_NE(rec.at("runners")
                  .at(0)
                  .at("extra_info")
                  .at("platform")
                  .get<std::string>()
                  .find("GOMP_SPINCOUNT=" + chosen[2].str() + ")"),
              std::string::npos)
        << rec.dump();
  }
  EXPECT_TRUE(latency_seen);

  // A second run takes the setting from the cache.
  std::filesystem::remove(out);
  const auto second = run_kbench_env(
      cache_env, "run --kernel exp --shape-index 0 --impl torch --target-ms 5 --output " + out.string());
  ASSERT_EQ(second.exit_code, 0) << second.output;
  EXPECT_NE(second.output.find("per shape (0 tuned now in 0.0 s, 1 from the tuning cache)"),
            std::string::npos)
      << second.output;
  EXPECT_NE(second.output.find(chosen[0].str()), std::string::npos) << second.output;
  for (const auto& rec : read_json(out)) {
    if (rec.at("metric").at("name") == "latency_ms") {
      EXPECT_EQ(rec.at("benchmark").at("extra_info").at("torch_setting_source"), "cache hit");
    }
  }
  std::filesystem::remove_all(dir);
}

TEST(CliRun, ACrashingShapeIsReportedAndTheOtherShapesKeepTheirResults) {
  const auto dir = scratch_dir("run-crash");
  const auto json = dir / "r.json";
  const auto r =
      run_kbench_env(env + "KBENCH_INJECT_WORKER_FAULT=exp:1:segv ",
                     "run --kernel exp --backend cpu --num-shapes 3 --target-ms 5 --output " + json.string());
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("| crashed"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("killed by signal 11 (Segmentation fault)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("Total: 2/3 shapes passed"), std::string::npos) << r.output;
  std::set<std::string> shapes_with_latency;
  for (const auto& rec : read_json(json)) {
    if (rec.at("metric").at("name") == "latency_ms") {
      shapes_with_latency.insert(rec.at("benchmark").at("extra_info").at("shape"));
    }
  }
  EXPECT_EQ(shapes_with_latency, (std::set<std::string>{"[1024]", "[16384]"}));
}

TEST(CliRun, AHangingShapeTimesOutAndTheRunGoesOn) {
  const auto r =
      run_kbench_env(env + "KBENCH_INJECT_WORKER_FAULT=exp:0:hang ",
                     "run --kernel exp --backend cpu --num-shapes 2 --target-ms 5 --timeout-per-kernel 15");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("| timeout"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("no result within 15 s (--timeout-per-kernel)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("Total: 1/2 shapes passed"), std::string::npos) << r.output;
}

TEST(CliRun, ATooTightToleranceFailsTheShapeWithTheErrors) {
  // exp's float32 results differ from torch's in the last bits: atol 0 and rtol 0 must flag them.
  const auto r = run("--kernel exp --backend cpu --shape-index 5 --atol 0 --rtol 0 --target-ms 5");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("| wrong result"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("elements outside atol"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("Total: 0/1 shapes passed"), std::string::npos) << r.output;
}

TEST(CliRun, CtrlCStopsAfterTheCurrentShapeAndWritesWhatWasMeasured) {
  const auto dir = scratch_dir("run-interrupt");
  const auto json = dir / "r.json";
  // SIGINT after 12 s, while the third shape hangs: the shapes before are kept and the summary says so.
  // (Generous times: on a loaded 2-core machine one shape's worker can take several seconds.)
  // (--foreground: one SIGINT to kbench alone, as a terminal Ctrl-C gives; without it timeout signals its
  // whole group a second time, which is the "Ctrl-C again to abort" case.)
  const auto r = run_kbench_env(
      env + "KBENCH_INJECT_WORKER_FAULT=exp:2:hang timeout --foreground --preserve-status --signal=INT 12 ",
      "run --kernel exp --backend cpu --num-shapes 4 --target-ms 5 --timeout-per-kernel 20 "
      "--output " +
          json.string());
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("stopping after the current shape"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("(interrupted: "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(" of 4 shapes not run)"), std::string::npos) << r.output;
  ASSERT_TRUE(std::filesystem::exists(json));
  EXPECT_GT(read_json(json).size(), 0U);
}

}  // namespace
}  // namespace kbench::test

namespace kbench::test {
namespace {

TEST(CliRunDb, StoresTheRecordsInTheHistoryAndRefusesAnUnreachableDatabase) {
  const auto dir = scratch_dir("run-db");
  const std::string url = "sqlite://" + (dir / "h.db").string();
  const auto r = run("--kernel exp --backend cpu --num-shapes 1 --target-ms 5 --commit abc123 --db " + url);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("stored "), std::string::npos) << r.output;
  const auto list = run_kbench("history list --db " + url);
  ASSERT_EQ(list.exit_code, 0) << list.output;
  EXPECT_NE(list.output.find("exp"), std::string::npos) << list.output;
  EXPECT_NE(list.output.find("latency_ms"), std::string::npos) << list.output;

  const auto bad = run("--kernel exp --backend cpu --num-shapes 1 --db postgresql://nobody@127.0.0.1:1/none");
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_EQ(bad.output.find("Total:"), std::string::npos) << bad.output;  // refused before running anything
}

}  // namespace
}  // namespace kbench::test

namespace kbench::test {
namespace {

TEST(CliRunSignals, SigtermStopsAfterTheShapeAndASecondStopsAtOnceWritingWhatWasMeasured) {
  const auto dir = scratch_dir("run-sigterm");
  const auto json = dir / "r.json";
  const std::string marker = "KBENCH_TEST_MARK=sigterm-" + std::to_string(::getpid());
  // The third shape hangs: the first SIGTERM (once the second shape is done) asks to stop after it, the
  // second kills its worker; the two shapes before are written.
  const auto r = run_and_signal(env + "KBENCH_INJECT_WORKER_FAULT=exp:2:hang", marker,
                                "run --kernel exp --backend cpu --num-shapes 4 --target-ms 5 "
                                "--timeout-per-kernel 300 --output " +
                                    json.string(),
                                dir / "log", "[2/4]", "TERM TERM");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("stopping after the current shape"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("stopping now"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("Total: 2/2 shapes passed (interrupted: 2 of 4 shapes not run)"), std::string::npos)
      << r.output;
  ASSERT_TRUE(std::filesystem::exists(json)) << r.output;
  std::set<std::string> shapes;
  for (const auto& record : read_json(json))
    shapes.insert(record.at("benchmark").at("extra_info").at("shape").get<std::string>());
  EXPECT_EQ(shapes.size(), 2u) << r.output;
  EXPECT_TRUE(wait_for([&] { return processes_marked(marker) == 0; }, 2)) << "a worker outlived kbench";
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    EXPECT_TRUE(e.path().filename() == "r.json" || e.path().filename() == "log") << e.path();
  }
}

TEST(CliRunSignals, SigkillLeavesNoWorkerAndNoTemporaryFile) {
  const auto dir = scratch_dir("run-sigkill");
  const std::string marker = "KBENCH_TEST_MARK=sigkill-" + std::to_string(::getpid());
  const auto r = run_and_signal(env + "KBENCH_INJECT_WORKER_FAULT=exp:1:hang", marker,
                                "run --kernel exp --backend cpu --num-shapes 3 --target-ms 5 "
                                "--timeout-per-kernel 300 --output " +
                                    (dir / "r.json").string(),
                                dir / "log", "[1/3]", "KILL");
  EXPECT_EQ(r.exit_code, 128 + SIGKILL) << r.output;
  EXPECT_TRUE(wait_for([&] { return processes_marked(marker) == 0; }, 2)) << "a worker outlived kbench";
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    EXPECT_EQ(e.path().filename(), "log") << "left behind: " << e.path();
  }
}

}  // namespace
}  // namespace kbench::test

namespace kbench::test {
namespace {

TEST(CliRunOutput, AnOutputThatCannotBeWrittenIsRefusedBeforeAnythingRuns) {
  const auto dir = scratch_dir("run-unwritable");
  std::vector<std::pair<std::string, std::string>> refused{
      {(dir / "missing" / "r.json").string(), "no directory"},
      {dir.string(), "it is a directory"},
      {"/proc/kbench-r.json", "cannot write the results file /proc/kbench-r.json"},
      {"/sys/kbench-r.json", "cannot write the results file /sys/kbench-r.json"}};
  if (::geteuid() != 0) {  // root writes into a read-only directory, so this one is a user's case only
    std::filesystem::create_directories(dir / "read-only");
    std::filesystem::permissions(dir / "read-only",
                                 std::filesystem::perms::owner_read | std::filesystem::perms::owner_exec);
    refused.emplace_back((dir / "read-only" / "r.json").string(), "Permission denied");
  }
  for (const auto& [path, why] : refused) {
    const auto r = run("--kernel exp --backend cpu --num-shapes 1 --target-ms 5 --output " + path);
    EXPECT_EQ(r.exit_code, 2) << path << ": " << r.output;
    EXPECT_NE(r.output.find(why), std::string::npos) << path << ": " << r.output;
    EXPECT_EQ(r.output.find("[1/1]"), std::string::npos) << "measured before refusing " << path;
  }
  if (::geteuid() != 0) {
    std::filesystem::permissions(dir / "read-only", std::filesystem::perms::owner_all,
                                 std::filesystem::perm_options::replace);
  }
}

TEST(CliRunOutput, ResultsThatCannotBeWrittenAtTheEndAreSavedInTheCacheDirectory) {
  const auto dir = scratch_dir("run-rescue");
  const auto cache = dir / "cache";
  std::filesystem::create_directories(dir / "out");
  // The output's directory disappears while the first shape is timed.
  const auto r = run_then("KBENCH_CACHE_DIR=" + cache.string(),
                          "run --kernel exp --backend cpu --num-shapes 2 --target-ms 5 --output " +
                              (dir / "out" / "r.json").string(),
                          dir / "log", "[1/2]", "rm -rf " + (dir / "out").string());
  const std::string& log = r.output;
  EXPECT_EQ(r.exit_code, 1) << log;
  // A fresh cache: the calibration says what it does, round by round.
  EXPECT_NE(log.find("calibrating once, for % peak BW (about 20 s"), std::string::npos) << log;
  EXPECT_NE(log.find("calibrating: round 5 of 5, triad "), std::string::npos) << log;
  EXPECT_NE(log.find("could not write " + (dir / "out" / "r.json").string()), std::string::npos) << log;
  const auto rescued = cache / "unsaved";
  ASSERT_TRUE(std::filesystem::is_directory(rescued)) << log;
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(rescued)) files.push_back(e.path());
  ASSERT_EQ(files.size(), 1u) << log;
  EXPECT_NE(log.find("saved in " + files[0].string()), std::string::npos) << log;
  std::set<std::string> shapes;
  for (const auto& record : read_json(files[0]))
    shapes.insert(record.at("benchmark").at("extra_info").at("shape").get<std::string>());
  EXPECT_EQ(shapes.size(), 2u) << log;
}

}  // namespace
}  // namespace kbench::test
