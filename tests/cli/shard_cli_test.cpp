// CLI tests of `kbench run --shard i/N` and `kbench run --list`: on the real suite, shards 1..N together list
// exactly the unsharded plan; a sharded run runs only its shard; a malformed spec exits 2.

#include "cli/run_kbench.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

namespace kbench::test {
namespace {

// The same calibration cache as run_test.cpp, so that the sharded run does not calibrate again.
const std::string env =
    "KBENCH_CACHE_DIR=" + (std::filesystem::temp_directory_path() / "kbench-cli-test-cache").string() + " ";

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

/// The "kernel shape" lines of `kbench run --list <args>`.
std::vector<std::string> listed(const std::string& args) {
  const auto r = run_kbench_env(env, "run --list " + args);
  EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.output;
  return lines_of(r.output);
}

TEST(CliShard, ListPrintsOneKernelShapeLinePerPlannedItem) {
  const auto items = listed("--kernel exp --num-shapes 3");
  EXPECT_EQ(items, (std::vector<std::string>{"exp [1024]", "exp [4096]", "exp [16384]"}));
}

TEST(CliShard, ShardsOneToNTogetherAreTheWholeSuiteWithNoItemTwice) {
  const auto all = listed("");
  ASSERT_GT(all.size(), 20U) << "the full suite should list every kernel x shape";
  auto sorted_all = all;
  std::sort(sorted_all.begin(), sorted_all.end());
  ASSERT_EQ(std::adjacent_find(sorted_all.begin(), sorted_all.end()), sorted_all.end()) << "duplicate item";
  for (std::size_t n : {3, 4}) {
    std::vector<std::string> union_of_shards;
    std::size_t smallest = all.size(), largest = 0;
    for (std::size_t i = 1; i <= n; ++i) {
      const auto shard = listed("--shard " + std::to_string(i) + "/" + std::to_string(n));
      smallest = std::min(smallest, shard.size());
      largest = std::max(largest, shard.size());
      // Round-robin over the plan order: shard i holds plan items i-1, i-1+N, i-1+2N, ...
      std::vector<std::string> expected;
      for (std::size_t k = i - 1; k < all.size(); k += n) expected.push_back(all[k]);
      EXPECT_EQ(shard, expected) << "shard " << i << "/" << n;
      union_of_shards.insert(union_of_shards.end(), shard.begin(), shard.end());
    }
    std::sort(union_of_shards.begin(), union_of_shards.end());
    EXPECT_EQ(union_of_shards, sorted_all) << "N = " << n;
    EXPECT_LE(largest - smallest, 1U) << "N = " << n;
  }
}

TEST(CliShard, ShardAppliesAfterTheKernelAndShapeSelection) {
  // exp has 8 shapes; shard 2/3 holds the 2nd, 5th and 8th.
  EXPECT_EQ(listed("--kernel exp --shard 2/3"),
            (std::vector<std::string>{"exp [4096]", "exp [262144]", "exp [104857600]"}));
  EXPECT_TRUE(listed("--kernel exp --shape-index 0 --shard 2/2").empty());
}

TEST(CliShard, AShapeSelectsThatShapeOfEveryKernelThatHasIt) {
  EXPECT_EQ(listed("--kernel exp,add,softmax_two_pass --shape [1024,1024]"),
            (std::vector<std::string>{"add [1024,1024]", "softmax_two_pass [1024,1024]"}));
  const auto missing = run_kbench_env(env, "run --list --kernel exp --shape [7]");
  EXPECT_EQ(missing.exit_code, 2) << missing.output;
  EXPECT_NE(missing.output.find("no selected kernel has shape [7] (valid: exp: [1024] [4096]"),
            std::string::npos)
      << missing.output;
  const auto both = run_kbench_env(env, "run --list --shape [1024,1024] --shape-index 0");
  EXPECT_EQ(both.exit_code, 2) << both.output;
}

TEST(CliShard, AShardedRunRunsOnlyItsShard) {
  const auto r =
      run_kbench_env(env, "run --kernel exp --num-shapes 3 --shard 2/2 --backend cpu --target-ms 5");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("[kbench] shard 2/2: 1 of 3 kernel x shape items"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("Total: 1/1 shapes passed"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("[4096]"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("[1024]"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("[16384]"), std::string::npos) << r.output;
}

TEST(CliShard, AMalformedShardExitsWithTwoAndNamesTheValidForm) {
  for (const std::string spec : {"0/4", "5/4", "2", "-1/4"}) {
    const auto r = run_kbench_env(env, "run --list --shard=" + spec);
    EXPECT_EQ(r.exit_code, 2) << spec << "\n" << r.output;
    EXPECT_NE(r.output.find("invalid --shard '" + spec + "'"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("i/N"), std::string::npos) << r.output;
  }
}

}  // namespace
}  // namespace kbench::test
