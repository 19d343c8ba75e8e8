// kbench measure, tune and run with --spec on PoCL: the example kernel is checked, timed, tuned and recorded
// as a built-in one is; a broken sync is caught; bad spec files exit 2 and write nothing.

#include "cli/run_kbench.hpp"
#include "spec_support.hpp"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

namespace kbench::test {
namespace {

TEST(SpecCli, MeasureChecksAndTimesTheExampleAgainstItsReferenceKernel) {
  const auto dir = scratch_dir("spec-measure");
  const auto json = dir / "out.json";
  const auto r =
      run_kbench_env(cache_env(dir), "measure --spec " + (example_dir / "vector_add.toml").string() +
                                         " --backend opencl --target-ms 20 --json " + json.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("checking against the reference kernel vector_add_reference"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("ok (max rel 0.0e+00)"), std::string::npos) << r.output;
  const auto records = nlohmann::json::parse(read_file(json));
  ASSERT_FALSE(records.empty());
  EXPECT_EQ(records[0]["model"]["name"], "vector_add");
}

TEST(SpecCli, ASpecKernelWhoseSyncIsANoOpIsFlaggedInvalid) {
  const auto dir = scratch_dir("spec-fault");
  const auto r =
      run_kbench_env(cache_env(dir), "measure --spec " + (example_dir / "vector_add.toml").string() +
                                         " --backend opencl --target-ms 20 --inject-sync-fault result");
  EXPECT_NE(r.output.find("result syncs returned before the work finished: timings are invalid"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("must not be trusted"), std::string::npos) << r.output;
}

TEST(SpecCli, AWrongKernelIsRecordedAsWrongAgainstTheReference) {
  const auto spec = vector_add_with_kernel("spec-wrong", "a[i] + b[i]", "a[i] - b[i]");
  const auto r = run_kbench_env(cache_env(spec.parent_path()),
                                "measure --spec " + spec.string() + " --backend opencl --target-ms 20");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("elements outside atol"), std::string::npos) << r.output;
}

TEST(SpecCli, ABadSpecExitsTwoNamingTheFileAndLineAndWritesNothing) {
  const auto spec = vector_add_spec("spec-bad", "[launch]\nglobal", "[launch]\nglobl = [1]\nglobal");
  const auto json = spec.parent_path() / "out.json";
  for (const std::string command : {"measure", "tune", "run"}) {
    const auto r = run_kbench_env(
        cache_env(spec.parent_path()),
        command + " --spec " + spec.string() + " --backend opencl" +
            (command == "tune" ? "" : (command == "run" ? " --output " : " --json ") + json.string()));
    EXPECT_EQ(r.exit_code, 2) << command << ": " << r.output;
    EXPECT_NE(r.output.find(spec.string() + ":48: unknown key 'globl' in [launch] (valid: global, local)"),
              std::string::npos)
        << command << ": " << r.output;
    EXPECT_FALSE(std::filesystem::exists(json)) << command;
    EXPECT_FALSE(std::filesystem::exists(spec.parent_path() / "cache" / "tuning")) << command;
  }
}

TEST(SpecCli, AConstraintThatLeavesNoConfigExitsTwo) {
  const auto spec = vector_add_spec("spec-empty-space", "constraints = [\"block_size_x <= 1024\"]",
                                    "constraints = [\"block_size_x > 4096\"]");
  const auto r =
      run_kbench_env(cache_env(spec.parent_path()), "tune --spec " + spec.string() + " --backend opencl");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("block_size_x > 4096"), std::string::npos) << r.output;
}

TEST(SpecCli, TuneRunsTrialsInWorkersAndTheCacheKeyFollowsTheSource) {
  const auto spec = vector_add_spec("spec-tune");
  const std::string env = cache_env(spec.parent_path());
  const std::string tune = "tune --spec " + spec.string() + " --backend opencl --tune-target-ms 10";
  const auto first = run_kbench_env(env, tune);
  ASSERT_EQ(first.exit_code, 0) << first.output;
  EXPECT_NE(first.output.find("6 valid configs"), std::string::npos) << first.output;
  EXPECT_NE(first.output.find("Best: {\"block_size_x\":"), std::string::npos) << first.output;

  const std::string run =
      "run --spec " + spec.string() +
      " --backend opencl --num-shapes 1 --target-ms 10 --tune-target-ms 10 --effort quick";
  const auto hit = run_kbench_env(env, run + " --assert-cache-hit");
  EXPECT_EQ(hit.exit_code, 0) << "the tuned config is found in the cache: " << hit.output;

  const auto source = spec.parent_path() / "vector_add.cl";
  write_file(source, read_file(source) + "\n// edited: a new kernel for the cache\n");
  const auto miss = run_kbench_env(env, run + " --assert-cache-hit");
  EXPECT_NE(miss.exit_code, 0) << "an edited source must not reuse the cached config: " << miss.output;
}

TEST(SpecCli, RunWritesRecordsOfTheSpecKernelBesideTheBuiltInOnes) {
  const auto dir = scratch_dir("spec-run");
  const auto json = dir / "run.json";
  const auto r =
      run_kbench_env(cache_env(dir), "run --spec " + (example_dir / "vector_add.toml").string() +
                                         " --kernel vector_add,add --backend opencl --num-shapes 1 "
                                         "--target-ms 10 --output " +
                                         json.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto records = nlohmann::json::parse(read_file(json));
  std::set<std::string> kernels;
  for (const auto& record : records) kernels.insert(record["model"]["name"].get<std::string>());
  EXPECT_EQ(kernels, (std::set<std::string>{"add", "vector_add"}));
}

}  // namespace
}  // namespace kbench::test
