// CLI tests: run the kbench binary, check its exit status, its messages and its JSON.

#include "cli/cpu_hogs.hpp"
#include "cli/run_kbench.hpp"
#include "support/v3_schema.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace kbench::test {
namespace {

nlohmann::json read_json(const std::filesystem::path& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(Cli, ListNamesTheExpKernelWithItsBackendsAndShapes) {
  const auto r = run_kbench("list");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("exp"), std::string::npos);
  EXPECT_NE(r.output.find("[104857600]"), std::string::npos);
  EXPECT_NE(r.output.find("cpu,opencl"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(",torch "), std::string::npos) << r.output;  // the baseline, where built
  EXPECT_EQ(run_kbench("--list-kernels").output, r.output);
}

TEST(Cli, DevicesListsEveryBackendAndTheAutoPick) {
  const auto r = run_kbench("devices");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* backend : {"cpu", "opencl", "cuda", "torch"}) {
    EXPECT_NE(r.output.find(std::string("\n") + backend), std::string::npos) << backend << "\n" << r.output;
  }
  EXPECT_NE(r.output.find("auto picks: "), std::string::npos);
}

TEST(Cli, UnknownKernelExitsWithTwoAndListsTheValidNames) {
  const auto r = run_kbench("measure --kernel nope --shape 1024");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("kbench: unknown kernel 'nope' (valid: "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("exp"), std::string::npos);
}

TEST(Cli, OpIsAnAliasOfKernel) {
  const auto r = run_kbench("measure --op nope");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("unknown kernel 'nope'"), std::string::npos) << r.output;
}

TEST(Cli, UnknownBackendExitsWithTwoAndListsTheValidNames) {
  const auto r = run_kbench("measure --kernel exp --shape 1024 --backend tpu");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("kbench: unknown backend 'tpu' (valid: auto, cpu, opencl, cuda, torch)"),
            std::string::npos)
      << r.output;
}

TEST(Cli, CalibrateListsItsOwnBackendNames) {
  // calibrate takes `all` too, and not torch (not a device).
  const auto unknown = run_kbench("calibrate --backend tpu");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.output.find("kbench: unknown backend 'tpu' (valid: auto, all, cpu, opencl, cuda)"),
            std::string::npos)
      << unknown.output;
  const auto torch = run_kbench("calibrate --backend torch");
  EXPECT_EQ(torch.exit_code, 2);
  EXPECT_NE(torch.output.find("measures a device backend (valid: auto, all, cpu, opencl, cuda)"),
            std::string::npos)
      << torch.output;
}

TEST(Cli, AutoBackendPicksOpenclHereBeforeCpu) {
  const auto r = run_kbench("measure --kernel exp --shape 1024 --backend auto --repeat 10");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("\nopencl "), std::string::npos)
      << r.output;  // PoCL is installed by the test setup
  EXPECT_EQ(r.output.find("\ncpu "), std::string::npos) << r.output;
}

TEST(Cli, UnknownShapeExitsWithTwoAndListsTheKernelsShapes) {
  const auto r = run_kbench("measure --kernel exp --shape 1000");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("kbench: unknown shape [1000] for kernel 'exp' (valid: [1024] [4096]"),
            std::string::npos)
      << r.output;
}

TEST(Cli, MalformedShapeAndOutOfRangeIndexExitWithTwo) {
  const auto bad = run_kbench("measure --kernel exp --shape 12ab");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.output.find("invalid shape '12ab'"), std::string::npos) << bad.output;
  const auto index = run_kbench("measure --kernel exp --shape-index 99");
  EXPECT_EQ(index.exit_code, 2);
  EXPECT_NE(index.output.find("shape index 99 out of range for kernel 'exp'"), std::string::npos)
      << index.output;
}

TEST(Cli, UnknownSyncFaultExitsWithTwo) {
  const auto r = run_kbench("measure --kernel exp --shape 1024 --inject-sync-fault sometimes");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("unknown sync fault 'sometimes' (valid: none, result, barrier, both)"),
            std::string::npos)
      << r.output;
}

TEST(Cli, UnknownOptionExitsWithTwo) {
  const auto r = run_kbench("measure --kernel exp --frobnicate");
  EXPECT_EQ(r.exit_code, 2) << r.output;
}

TEST(Cli, MeasureWritesOneV3RecordPerImplementationAndMetric) {
  const auto dir = scratch_dir("measure");
  const auto json = dir / "r.json";
  const auto r = run_kbench("measure --kernel exp --shape 65536 --repeat 20 --json " + json.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* column : {"Wall (ms)", "Throughput (ms)", "Device (ms)", "Capture", "Sync check"}) {
    EXPECT_NE(r.output.find(column), std::string::npos) << column;
  }
  const auto records = read_json(json);
  ASSERT_TRUE(records.is_array());
  std::map<std::string, std::set<std::string>> metrics_by_backend;
  for (const auto& rec : records) {
    EXPECT_EQ(rec.at("schema_version"), "v3");
    EXPECT_EQ(rec.at("model").at("name"), "exp");
    EXPECT_EQ(rec.at("benchmark").at("extra_info").at("shape"), "[65536]");
    EXPECT_EQ(rec.at("benchmark").at("dtype"), "float32");
    ASSERT_EQ(rec.at("runners").size(), 1U);
    EXPECT_FALSE(rec.at("runners")[0].at("type").get<std::string>().empty());
    const std::string backend = rec.at("model").at("backend");
    const std::string metric = rec.at("metric").at("name");
    EXPECT_TRUE(metrics_by_backend[backend].insert(metric).second)
        << "duplicate " << backend << " " << metric;
    EXPECT_TRUE(test::v3_schema_errors(rec).empty()) << rec.dump();
    if (metric != "accuracy" && metric != "machine_disturbed") {
      EXPECT_EQ(rec.at("metric").at("extra_info").at("valid"), "true") << backend << " " << metric;
    }
    const auto& values = rec.at("metric").at("benchmark_values");
    if (metric == "capture_ratio" || metric == "accuracy") {
      EXPECT_EQ(values[0], 1.0) << backend << " " << metric;
    }
    if (metric == "latency_ms") {
      EXPECT_EQ(values.size(), 20U) << backend;
    }
  }
  const std::set<std::string> expected{"accuracy",  "latency_ms",    "throughput_ms",
                                       "device_ms", "capture_ratio", "machine_disturbed"};
  for (const char* backend : {"torch", "kbench-cpu", "kbench-opencl"}) {
    EXPECT_EQ(metrics_by_backend[backend], expected) << backend;
  }
}

TEST(Cli, AMeasurementBesideCpuHogsSaysTheMachineWasBusy) {
  const auto json = scratch_dir("measure-busy") / "r.json";
  process_result r;
  {
    const cpu_hogs hogs;
    r = run_kbench("measure --kernel exp --shape 65536 --backend cpu --target-ms 300 --json " +
                   json.string());
  }
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("the machine was busy while this was timed (other processes used "),
            std::string::npos)
      << r.output;
  std::size_t marked = 0;
  for (const auto& rec : read_json(json)) {
    if (rec.at("metric").at("name") == "accuracy") continue;
    const auto& extra = rec.at("benchmark").at("extra_info");
    EXPECT_EQ(extra.at("machine"), "disturbed") << extra;
    EXPECT_NE(extra.at("machine_detail").get<std::string>().find("disturbed: other processes used"),
              std::string::npos)
        << extra;
    if (rec.at("metric").at("name") == "machine_disturbed") {
      EXPECT_EQ(rec.at("metric").at("benchmark_values"), nlohmann::json::array({1.0})) << rec.dump();
    }
    ++marked;
  }
  EXPECT_EQ(marked, 5u)
      << "latency, throughput, device time, capture and machine_disturbed of the cpu backend";
}

// measure times torch in its own process, so it runs itself again with the workers' short libgomp spin count
// (suite/detail/worker_process.hpp) unless the user set one; torch's device line names the count in effect.
TEST(Cli, MeasureRunsTorchWithTheWorkersOpenmpSpinCountUnlessOneIsSet) {
  const std::string args = "measure --kernel add --shape [128,128] --backend cpu,torch --repeat 10";
  const auto unset = run_kbench_env("env -u GOMP_SPINCOUNT ", args);
  ASSERT_EQ(unset.exit_code, 0) << unset.output;
  EXPECT_NE(unset.output.find(" threads, GOMP_SPINCOUNT=10000)"), std::string::npos) << unset.output;
  const auto set = run_kbench_env("GOMP_SPINCOUNT=123 ", args);
  ASSERT_EQ(set.exit_code, 0) << set.output;
  EXPECT_NE(set.output.find(", GOMP_SPINCOUNT=123)"), std::string::npos) << set.output;
}

TEST(Cli, InjectedSyncFaultIsShownAsAFailureAndExitsNonZero) {
  const auto dir = scratch_dir("fault");
  const auto json = dir / "r.json";
  const auto r = run_kbench(
      "measure --kernel exp --shape 1048576 --backend cpu --repeat 20 --inject-sync-fault both "
      "--json " +
      json.string());
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("FAIL ("), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("INVALID"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("must not be trusted"), std::string::npos) << r.output;
  std::size_t timings = 0;
  for (const auto& rec : read_json(json)) {
    const std::string metric = rec.at("metric").at("name");
    if (metric == "latency_ms") {
      EXPECT_EQ(rec.at("metric").at("extra_info").at("valid"), "false");
      EXPECT_GT(test::extra_number(rec.at("metric").at("extra_info"), "result_sync_violations"), 0);
    }
    // A timing that failed its checks is kept only as invalid samples, never as values to plot.
    if (metric == "latency_ms" || metric == "throughput_ms" || metric == "device_ms") {
      EXPECT_TRUE(rec.at("metric").at("benchmark_values").empty()) << metric;
      EXPECT_GT(
          nlohmann::json::parse(rec.at("metric").at("extra_info").at("invalid_samples").get<std::string>())
              .size(),
          0U)
          << metric;
      ++timings;
    }
  }
  EXPECT_EQ(timings, 3u);
}

TEST(Cli, JsonIsAppendedToAValidFile) {
  const auto dir = scratch_dir("append");
  const auto json = dir / "r.json";
  const std::string args =
      "measure --kernel exp --shape 1024 --backend cpu --repeat 10 --json " + json.string();
  ASSERT_EQ(run_kbench(args).exit_code, 0);
  const auto first = read_json(json).size();
  ASSERT_GT(first, 0U);
  ASSERT_EQ(run_kbench(args).exit_code, 0);
  EXPECT_EQ(read_json(json).size(), 2 * first);
}

TEST(Cli, AnUnparsableJsonFileIsNeverOverwritten) {
  const auto dir = scratch_dir("refuse");
  const auto json = dir / "r.json";
  const std::string garbage = "{ this is not a results file";
  std::ofstream(json) << garbage;
  const auto r =
      run_kbench("measure --kernel exp --shape 1024 --backend cpu --repeat 10 --json " + json.string());
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("refusing to overwrite it"), std::string::npos) << r.output;
  EXPECT_EQ(read_text(json), garbage);

  const std::string not_v3 = R"([{"schema_version": "v2"}])";
  std::ofstream(json, std::ios::trunc) << not_v3;
  const auto r2 =
      run_kbench("measure --kernel exp --shape 1024 --backend cpu --repeat 10 --json " + json.string());
  EXPECT_NE(r2.exit_code, 0);
  EXPECT_EQ(read_text(json), not_v3);
}

}  // namespace
}  // namespace kbench::test

namespace kbench::test {
namespace {

TEST(Cli, NoSubcommandOrAnUnknownOneListsTheSubcommandsAndExitsWithTwo) {
  for (const std::string args : {"", "mesure", "regresions --db x"}) {
    const auto r = run_kbench(args);
    EXPECT_EQ(r.exit_code, 2) << "kbench " << args << ": " << r.output;
    for (const char* sub : {"measure", "run", "tune", "history", "regressions", "report"}) {
      EXPECT_NE(r.output.find(std::string("\n  ") + sub + " "), std::string::npos)
          << args << ": " << r.output;
    }
    if (!args.empty()) {
      EXPECT_NE(r.output.find("unknown subcommand \"" + args.substr(0, args.find(' ')) + "\""),
                std::string::npos)
          << r.output;
    }
  }
  EXPECT_EQ(run_kbench("--version").exit_code, 0);
}

TEST(Cli, ErrorsNameNoSourceFileOfKbench) {
  const auto dir = scratch_dir("no-source-place");
  const auto r = run_kbench("measure --kernel exp --shape 1024 --backend cpu --repeat 5 --json " +
                            (dir / "missing" / "r.json").string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_EQ(r.output.find(".cpp:"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find(".hpp:"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace kbench::test
