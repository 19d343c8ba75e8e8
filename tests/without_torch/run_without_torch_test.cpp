// kbench built without libtorch (KBENCH_WITH_TORCH=OFF): the suite, measure and tune run with each kernel's
// cpu implementation at its default config as the reference and no baseline, say so, and still catch a
// config that returns wrong values. Built only where libtorch is not.

#include "cli/run_kbench.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace kbench::test {
namespace {

namespace fs = std::filesystem;

const std::string env =
    "KBENCH_CACHE_DIR=" + (fs::temp_directory_path() / "kbench-without-torch-cache").string() + " ";

TEST(WithoutTorch, RunChecksAgainstTheCpuImplementationAndSaysThereIsNoBaseline) {
  const fs::path out = scratch_dir("without-torch-run") / "run.json";
  const auto r = run_kbench_env(
      env, "run --kernel add,sum --shape-index 0 --backend cpu --target-ms 5 --output " + out.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("Total: 2/2 shapes passed"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("geometric-mean speedup"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("No torch baseline: this kbench was built without libtorch"), std::string::npos)
      << r.output;
  std::ifstream in(out);
  const auto records = nlohmann::json::parse(in);
  ASSERT_FALSE(records.empty());
  for (const auto& record : records)
    EXPECT_EQ(record.at("model").at("backend"), "kbench-cpu") << record.dump();
}

TEST(WithoutTorch, AskingForTheTorchBaselineExitsWithTwo) {
  const auto r = run_kbench_env(env, "run --kernel add --shape-index 0 --backend cpu --impl torch");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("no torch baseline (built without libtorch); valid: kbench"), std::string::npos)
      << r.output;
}

TEST(WithoutTorch, MeasureTimesTheCpuImplementation) {
  const auto r = run_kbench_env(env, "measure --kernel exp --shape 4096 --backend cpu --target-ms 5");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("cpu"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("torch "), std::string::npos) << r.output;
}

TEST(WithoutTorch, TuningCatchesAConfigThatReturnsWrongValues) {
  const auto space = run_kbench("tune --kernel exp --backend cpu --shape-index 3 --show-space");
  ASSERT_EQ(space.exit_code, 0) << space.output;
  std::vector<std::string> configs;
  std::istringstream lines(space.output);
  for (std::string line; std::getline(lines, line) && configs.size() < 2;) {
    if (!line.empty()) configs.push_back(line);
  }
  ASSERT_EQ(configs.size(), 2U) << space.output;
  const fs::path cache = scratch_dir("without-torch-tune");
  const auto r = run_kbench_env(
      "KBENCH_CACHE_DIR=" + cache.string() + " KBENCH_INJECT_TRIAL_FAULT='exp|" + configs[0] + "|wrong' ",
      "tune --kernel exp --shape-index 3 --backend cpu --strategy exhaustive "
      "--max-evals 2 --tune-target-ms 5 --config-timeout 60");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find(configs[0] + " wrong_result"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("Best: " + configs[1]), std::string::npos) << r.output;
}

}  // namespace
}  // namespace kbench::test
