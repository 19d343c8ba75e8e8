// kbench's records against the PyTorch hub's oss_ci_benchmark_v3 table (tests/data/v3-schema): every field,
// with its type; the change measured taken from GitHub Actions' environment; runners[0] as the hub means it.

#include "support/v3_schema.hpp"

#include <kbench/io/json_v3.hpp>
#include <kbench/suite/v3_records.hpp>

#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <optional>
#include <string>

namespace kbench {
using namespace suite;  // the suite's kernel API, unqualified
namespace {

/// Sets environment variables for one scope and restores them after.
class scoped_environment {
 public:
  explicit scoped_environment(const std::map<std::string, std::string>& values) {
    for (const auto& [name, value] : values) {
      const char* old = std::getenv(name.c_str());
      m_saved[name] = old == nullptr ? std::nullopt : std::optional<std::string>(old);
      ::setenv(name.c_str(), value.c_str(), 1);
    }
  }
  ~scoped_environment() {
    for (const auto& [name, value] : m_saved) {
      if (value) {
        ::setenv(name.c_str(), value->c_str(), 1);
      } else {
        ::unsetenv(name.c_str());
      }
    }
  }
  scoped_environment(const scoped_environment&) = delete;
  scoped_environment& operator=(const scoped_environment&) = delete;

 private:
  std::map<std::string, std::optional<std::string>> m_saved;
};

io::record_context cpu_context() {
  io::record_context c;
  c.kernel = "exp";
  c.shape = "[1024]";
  c.device.backend = backend_kind::cpu;
  c.device.name = "Test CPU";
  c.timestamp = 1764500000;
  c.extra = {{"status", "ok"}, {"machine", "quiet"}};
  return c;
}

TEST(V3Schema, ARecordHasEveryFieldOfTheHubsTableWithItsType) {
  const auto record = io::make_record(
      cpu_context(), "latency_ms", {0.5, 0.6},
      {{"median", 0.55}, {"valid", true}, {"invalid_samples", nlohmann::json::array({1.0, 2.0})}});
  const auto errors = test::v3_schema_errors(record);
  EXPECT_TRUE(errors.empty()) << fmt::format("{}", fmt::join(errors, "\n")) << "\n" << record.dump(2);
  // Maps of strings: other values as their JSON text.
  EXPECT_EQ(record.at("metric").at("extra_info").at("valid"), "true");
  EXPECT_EQ(record.at("metric").at("extra_info").at("median"), "0.55");
  EXPECT_EQ(record.at("metric").at("extra_info").at("invalid_samples"), "[1.0,2.0]");
  EXPECT_EQ(record.at("inputs").at("input").at("extra_info").at("shape"), "[1024]");
  EXPECT_EQ(record.at("dependencies").at("kbench").at("version").get<std::string>().empty(), false);
}

TEST(V3Schema, TheChangeAndTheRunnerComeFromGitHubActions) {
  const scoped_environment env({{"GITHUB_REPOSITORY", "org/kernels"},
                                {"GITHUB_SHA", "0123abcd"},
                                {"GITHUB_REF_NAME", "main"},
                                {"GITHUB_HEAD_REF", ""},
                                {"GITHUB_RUN_ID", "987654321"},
                                {"GITHUB_RUN_ATTEMPT", "2"},
                                {"KBENCH_JOB_ID", "42"},
                                {"RUNNER_NAME", "gpu-runner-7"}});
  const auto record = io::make_record(cpu_context(), "latency_ms", {0.5});
  EXPECT_TRUE(test::v3_schema_errors(record).empty());
  EXPECT_EQ(record.at("repo"), "org/kernels");
  EXPECT_EQ(record.at("head_sha"), "0123abcd");
  EXPECT_EQ(record.at("head_branch"), "main");
  EXPECT_EQ(record.at("workflow_id").get<std::uint64_t>(), 987654321U);
  EXPECT_EQ(record.at("run_attempt").get<std::uint32_t>(), 2U);
  EXPECT_EQ(record.at("job_id").get<std::uint64_t>(), 42U);
  // runners[0]: the runner and the device, as the hub means them; kbench's backend in extra_info.
  const auto& runner = record.at("runners").at(0);
  EXPECT_EQ(runner.at("name"), "gpu-runner-7");
  EXPECT_EQ(runner.at("type"), "Test CPU");
  EXPECT_EQ(runner.at("extra_info").at("backend"), "cpu");
  EXPECT_EQ(record.at("benchmark").at("extra_info").at("backend"), "cpu");

  // A pull request's branch is its head; a value that is not a number is no id.
  const scoped_environment pr({{"GITHUB_HEAD_REF", "feature/x"}, {"GITHUB_RUN_ID", "abc"}});
  const auto from_pr = io::make_record(cpu_context(), "latency_ms", {0.5});
  EXPECT_EQ(from_pr.at("head_branch"), "feature/x");
  EXPECT_EQ(from_pr.at("workflow_id").get<std::uint64_t>(), 0U);
}

TEST(V3Schema, TheCheckFindsWhatDoesNotConform) {
  auto record = io::make_record(cpu_context(), "latency_ms", {0.5});
  record["metric"]["extra_info"]["median"] = 0.5;  // a number in a Map(String, String)
  record["runners"][0]["cpu_count"] = -1;
  record.erase("head_sha");
  record["unknown"] = 1;
  const auto errors = fmt::format("{}", fmt::join(test::v3_schema_errors(record), "\n"));
  EXPECT_NE(errors.find("record.metric.extra_info.median: not a String"), std::string::npos) << errors;
  EXPECT_NE(errors.find("record.runners[0].cpu_count: not a UInt32"), std::string::npos) << errors;
  EXPECT_NE(errors.find("record.head_sha: missing"), std::string::npos) << errors;
  EXPECT_NE(errors.find("record.unknown: not in the schema"), std::string::npos) << errors;
}

TEST(V3Schema, EveryRecordOfASuiteShapeConforms) {
  suite::shape_result r;
  r.kernel = "add";
  r.shape = "[256,256]";
  r.bytes_moved = 3 * 256 * 256 * 4;
  r.kbench = suite::impl_result{};
  r.kbench->impl = "kbench";
  r.kbench->device.backend = backend_kind::cpu;
  r.kbench->device.name = "Test CPU";
  r.kbench->accurate = r.kbench->valid = true;
  r.kbench->latency_ms = {0.01, 0.011, 0.012};
  r.kbench->throughput_ms = {0.01};
  r.kbench->device_ms = {0.009};
  r.kbench->dispatched = r.kbench->captured = 4;
  r.torch = r.kbench;
  r.torch->impl = "torch";
  r.torch->device.backend = backend_kind::torch;
  r.torch->latency_ms = {0.02, 0.021, 0.022};
  suite::baseline_setting setting;
  setting.threads = 2;
  setting.spin = 300000;
  setting.source = "tuned";
  r.baseline = setting;
  calibration peak;
  peak.backend = "cpu";
  peak.triad_gbps = 50;
  const auto records = suite::shape_records(r, "none", 1764500000, peak, 0.02);
  ASSERT_GE(records.size(), 8U);
  for (const auto& record : records) {
    const auto errors = test::v3_schema_errors(record);
    EXPECT_TRUE(errors.empty()) << fmt::format("{}", fmt::join(errors, "\n"));
  }
}

}  // namespace
}  // namespace kbench
