// Simulation: loading recorded spaces (Kernel Tuner cache files, kbench config logs), malformed files, and
// replaying strategies on the two shared brute-forced spaces.

#include "support/scratch_dir.hpp"
#include "support/tuning_spaces.hpp"

#include <kbench/error.hpp>
#include <kbench/tune/simulate.hpp>
#include <kbench/tune/strategy.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace kbench::tune {
namespace {

namespace fs = std::filesystem;

// Writes `text` to dir/name and returns that path.
fs::path write_file(const fs::path& dir, const std::string& name, const std::string& text) {
  std::ofstream(dir / name, std::ios::binary) << text;
  return dir / name;
}

std::string load_error(const fs::path& file) {
  try {
    (void)load_recorded_space(file);
  } catch (const usage_error& e) {
    return e.what();
  }
  return "no error";
}

constexpr const char* small_cache = R"({
  "device_name": "Test GPU", "kernel_name": "k", "tune_params_keys": ["block_size_x", "vec", "mode"],
  "tune_params": {"block_size_x": [32, 64, 128], "vec": [1, 2], "mode": ["a", "b"]},
  "cache": {
    "32,1,a": {"block_size_x": 32, "vec": 1, "mode": "a", "time": 3.0},
    "64,1,a": {"block_size_x": 64, "vec": 1, "mode": "a", "time": 2.0},
    "128,1,a": {"block_size_x": 128, "vec": 1, "mode": "a", "time": 1.5},
    "128,2,a": {"block_size_x": 128, "vec": 2, "mode": "a", "time": "CompilationFailedConfig"},
    "64,2,b": {"block_size_x": 64, "vec": 2, "mode": "b", "time": "RuntimeFailedConfig"},
    "32,2,b": {"block_size_x": 32, "vec": 2, "mode": "b", "time": "InvalidConfig"}
  }
})";

TEST(TuneSimulate, ReadsAKernelTunerCacheWithFailures) {
  const recorded_space r = parse_recorded_space(small_cache, "small");
  EXPECT_EQ(r.description, "k on Test GPU");
  EXPECT_EQ(r.space.size(), 6u);
  EXPECT_EQ(r.space.cartesian_size(), 12u);
  ASSERT_EQ(r.space.parameters().size(), 3u);
  EXPECT_TRUE(r.space.parameters()[0].is_block_size());
  EXPECT_EQ(r.space.parameters()[2].kind(), parameter_kind::enumeration);
  ASSERT_TRUE(r.optimum);
  EXPECT_EQ(r.space.to_config(*r.optimum), (config{{"block_size_x", 128}, {"vec", 1}, {"mode", 0}}));
  EXPECT_DOUBLE_EQ(r.outcomes[*r.optimum].time_ms, 1.5);
  const auto status_of = [&](config c) { return r.outcomes[*r.space.find(c)].status; };
  EXPECT_EQ(status_of({{"block_size_x", 128}, {"vec", 2}, {"mode", 0}}), eval_status::compile_error);
  EXPECT_EQ(status_of({{"block_size_x", 64}, {"vec", 2}, {"mode", 1}}), eval_status::runtime_error);
  EXPECT_EQ(status_of({{"block_size_x", 32}, {"vec", 2}, {"mode", 1}}), eval_status::invalid_config);
  // Kernel Tuner closes its cache only when tuning ends; an unfinished file still reads.
  std::string unfinished = small_cache;
  unfinished.erase(unfinished.rfind('}'));
  unfinished.erase(unfinished.rfind('}'));
  EXPECT_EQ(parse_recorded_space(unfinished, "unfinished").space.size(), 6u);
}

TEST(TuneSimulate, ConfigLogRoundTrip) {
  const recorded_space r = parse_recorded_space(small_cache, "small");
  const fs::path dir = test::scratch_dir("tune-simulate-config-log");
  const fs::path log = write_file(dir, "log.json", "");
  save_config_log(log, r.space, r.outcomes, "k", "Test GPU");
  const recorded_space back = load_recorded_space(log);
  EXPECT_EQ(back.description, "k on Test GPU");
  ASSERT_EQ(back.space.size(), r.space.size());
  for (config_id id = 0; id < r.space.size(); ++id) {
    const auto other = back.space.find(r.space.to_config(id));
    ASSERT_TRUE(other);
    EXPECT_EQ(back.outcomes[*other].status, r.outcomes[id].status);
    if (r.outcomes[id].ok()) {
      EXPECT_DOUBLE_EQ(back.outcomes[*other].time_ms, r.outcomes[id].time_ms);
    }
  }
  EXPECT_EQ(back.space.parameters()[2].labels(), (std::vector<std::string>{"a", "b"}));
}

TEST(TuneSimulate, MalformedFilesAreUsageErrors) {
  const fs::path dir = test::scratch_dir("tune-simulate-malformed");
  EXPECT_EQ(
      load_error(write_file(dir, "a.json", "[1, 2]")),
      (write_file(dir, "a.json", "[1, 2]").string() +
       ": not a valid Kernel Tuner cache file or kbench config log: the top level is not a JSON object"));
  EXPECT_NE(load_error(write_file(dir, "b.json", "{\"cache\": ")).find("invalid JSON"), std::string::npos);
  // Found by fuzz_kernel_tuner_cache: a number too large for any type escaped as the JSON library's error.
  EXPECT_NE(load_error(write_file(dir, "b2.json", std::string(400, '1'))).find("invalid JSON"),
            std::string::npos);
  EXPECT_NE(load_error(write_file(dir, "c.json", "{\"x\": 1}")).find("neither a \"cache\""),
            std::string::npos);
  EXPECT_NE(load_error(write_file(dir, "d.json",
                                  R"({"tune_params": {"a": [1, 2]}, "cache": {"1": {"a": 3, "time": 1}}})"))
                .find("a = 3 is not in tune_params"),
            std::string::npos);
  EXPECT_NE(load_error(write_file(dir, "e.json",
                                  R"({"tune_params": {"a": [1]}, "cache": {"1": {"a": 1, "time": null}}})"))
                .find("neither a number nor a string"),
            std::string::npos);
  EXPECT_NE(load_error(write_file(dir, "f.json", R"({"format": "kbench-config-log", "version": 1,
      "parameters": [{"name": "B", "kind": "integers", "values": [1, 2]}],
      "configs": [{"values": {"B": 1}, "status": "ok"}]})"))
                .find("configs[0]: status ok needs a positive \"time_ms\""),
            std::string::npos);
  EXPECT_NE(load_error(write_file(dir, "g.json", R"({"format": "kbench-config-log", "version": 1,
      "parameters": [{"name": "B", "kind": "integers", "values": [1, 2]}],
      "configs": [{"values": {"B": 1}, "status": "melted"}]})"))
                .find("unknown evaluation status 'melted'"),
            std::string::npos);
  const fs::path missing = write_file(dir, "h.json", "").parent_path() / "missing.json";
  EXPECT_EQ(load_error(missing), missing.string() + ": no such file");
}

class SharedSpaces : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    m_file = test::tuning_spaces_dir() / GetParam();
    if (!fs::exists(m_file)) GTEST_SKIP() << "shared tuning spaces not found at " << m_file;
  }
  fs::path m_file;
};

TEST_P(SharedSpaces, LoadsWithFailuresKept) {
  const recorded_space r = load_recorded_space(m_file);
  EXPECT_EQ(r.space.cartesian_size(), 10240u);
  EXPECT_EQ(r.space.size(), 4362u);
  std::size_t ok = 0;
  for (const evaluation& e : r.outcomes) ok += e.ok() ? 1 : 0;
  EXPECT_EQ(ok, 4201u);
  ASSERT_TRUE(r.optimum);
}

TEST_P(SharedSpaces, DefaultStrategyBeatsRandomAndReachesAFloor) {
  const recorded_space r = load_recorded_space(m_file);
  simulation_options options;
  options.budgets = {100};
  options.runs = 20;
  const budget_outcome tuned = simulate(r, default_strategy_name(), options).front();
  const budget_outcome random = simulate(r, "random", options).front();
  EXPECT_EQ(tuned.budget, 100u);
  ASSERT_EQ(tuned.fractions.size(), 20u);
  EXPECT_GE(tuned.mean(), 0.8);
  EXPECT_GT(tuned.mean(), random.mean());
  EXPECT_LE(tuned.mean(), 1.0);
  EXPECT_GT(tuned.share_reaching(0.9), random.share_reaching(0.9));
  // Seeded: the same options give the same figures, run by run.
  EXPECT_EQ(simulate(r, default_strategy_name(), options).front().fractions, tuned.fractions);
}

TEST_P(SharedSpaces, EveryBudgetIsScoredFromOneSearchSoARunNeverGetsWorse) {
  const recorded_space r = load_recorded_space(m_file);
  simulation_options options;
  options.budgets = {25, 50, 100};
  options.runs = 10;
  for (const std::string_view strategy : {default_strategy_name(), std::string_view("random")}) {
    const std::vector<budget_outcome> curve = simulate(r, strategy, options);
    ASSERT_EQ(curve.size(), 3u);
    for (std::size_t run = 0; run < options.runs; ++run) {
      EXPECT_LE(curve[0].fractions[run], curve[1].fractions[run]) << strategy << " run " << run;
      EXPECT_LE(curve[1].fractions[run], curve[2].fractions[run]) << strategy << " run " << run;
    }
    // The largest budget's figure is that of a search run alone with it.
    simulation_options alone = options;
    alone.budgets = {100};
    EXPECT_EQ(simulate(r, strategy, alone).front().fractions, curve[2].fractions) << strategy;
  }
}

TEST(TuneSimulate, BudgetOutcomeSummarizesTheRuns) {
  const budget_outcome o{50, {1.0, 0.5, 0.9, 0.7}};
  EXPECT_DOUBLE_EQ(o.mean(), 0.775);
  EXPECT_DOUBLE_EQ(o.quantile(0.5), 0.8);
  EXPECT_DOUBLE_EQ(o.quantile(0.0), 0.5);
  EXPECT_DOUBLE_EQ(o.share_reaching(0.9), 0.5);  // 1.0 and 0.9 reach it
  EXPECT_DOUBLE_EQ(o.share_reaching(0.95), 0.25);
  const budget_outcome none{50, {}};
  EXPECT_EQ(none.mean(), 0.0);
  EXPECT_EQ(none.share_reaching(0.9), 0.0);
}

TEST_P(SharedSpaces, TruncatedGzipIsAUsageError) {
  std::ifstream in(m_file, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const fs::path dir = test::scratch_dir("tune-simulate-truncated-gzip");
  const fs::path cut = write_file(dir, "cut.json.gz", bytes.substr(0, bytes.size() / 2));
  const std::string message = load_error(cut);
  EXPECT_EQ(message.rfind(cut.string() + ": not a valid Kernel Tuner cache file or kbench config log: ", 0),
            0u)
      << message;
}

INSTANTIATE_TEST_SUITE_P(Convolution, SharedSpaces,
                         ::testing::Values("convolution_A100.json.gz", "convolution_A4000.json.gz"),
                         [](const ::testing::TestParamInfo<std::string>& param) {
                           return param.param.substr(12, param.param.find('.') - 12);
                         });

}  // namespace
}  // namespace kbench::tune
