// The autotuner end to end on the cpu backend with the real exp kernel: configs that crash, hang or return
// wrong values are recorded with their status while tuning finishes; the cache makes a second pass tune
// nothing; a miss under --assert-cache-hit prints the key and a diff; corrupt entries and checkpoints.

#include <nlohmann/json.hpp>

#include "run_kbench.hpp"
#include "stop_signals.hpp"
#include "support/tuning_spaces.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace kbench::test {
namespace {

namespace fs = std::filesystem;

std::string env_for(const fs::path& cache, const std::string& extra = {}) {
  return "KBENCH_CACHE_DIR=" + cache.string() + " " + extra + (extra.empty() ? "" : " ");
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) lines.push_back(line);
  }
  return lines;
}

/// The first exp shape (index) whose cpu space has at least `wanted` configs, and those configs.
std::pair<int, std::vector<std::string>> exp_shape_with_configs(std::size_t wanted) {
  for (int index = 0; index < 8; ++index) {
    const auto r = run_kbench("tune --kernel exp --backend cpu --shape-index " + std::to_string(index) +
                              " --show-space");
    if (r.exit_code != 0) break;
    const auto configs = lines_of(r.output);
    if (configs.size() >= wanted) return {index, configs};
  }
  return {-1, {}};
}

/// Files under the cache's tuning/ folder (the calibration cache sits beside it) whose name contains
/// `needle`.
std::vector<fs::path> cache_files(const fs::path& cache, const std::string& needle = ".json") {
  std::vector<fs::path> found;
  const fs::path dir = cache / "tuning";
  if (!fs::exists(dir)) return found;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file() && e.path().filename().string().find(needle) != std::string::npos) {
      found.push_back(e.path());
    }
  }
  return found;
}

nlohmann::json read_json(const fs::path& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

const std::string fast = " --backend cpu --tune-target-ms 5 --config-timeout 20";

TEST(TuneCli, CrashHangAndWrongConfigsAreRecordedAndTuningFinishes) {
  const auto [index, configs] = exp_shape_with_configs(4);
  ASSERT_GE(index, 0) << "exp needs a cpu tuning space with 4 configs on some shape";
  const fs::path cache = scratch_dir("tune-faults");
  // Single quotes: the configs are JSON with double quotes.
  const std::string faults = "KBENCH_INJECT_TRIAL_FAULT='exp|" + configs[0] + "|segv;exp|" + configs[1] +
                             "|hang;exp|" + configs[2] + "|wrong' ";
  const auto r = run_kbench_env(env_for(cache, faults),
                                "tune --kernel exp --shape-index " + std::to_string(index) +
                                    " --backend cpu --strategy exhaustive --max-evals 4 --tune-target-ms 5 "
                                    "--config-timeout 5");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find(configs[0] + " runtime_error: worker died on signal 11"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find(configs[1] + " timeout"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(configs[2] + " wrong_result"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("Best: " + configs[3]), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("4 configs evaluated (3 failed"), std::string::npos) << r.output;

  const auto files = cache_files(cache);
  ASSERT_EQ(files.size(), 1u);
  const auto entry = read_json(files[0]);
  EXPECT_TRUE(entry.at("complete").get<bool>());
  ASSERT_EQ(entry.at("log").size(), 4u);
  EXPECT_EQ(entry["log"][0]["status"], "runtime_error");
  EXPECT_EQ(entry["log"][1]["status"], "timeout");
  EXPECT_EQ(entry["log"][2]["status"], "wrong_result");
  EXPECT_EQ(entry["log"][3]["status"], "ok");
  EXPECT_EQ(entry["best"].dump(), configs[3]);
  for (const char* field : {"kernel", "shape", "dtype", "backend", "device", "driver", "source_hash",
                            "space_hash", "kbench_version"}) {
    EXPECT_TRUE(entry["key"].contains(field)) << field;
  }
  EXPECT_EQ(entry["key"]["source_hash"].get<std::string>().size(), 64u) << "the build stamps a SHA-256";
}

TEST(TuneCli, TwoPassRunRecordsTunedResultsFromTheCache) {
  // The first pass evaluates 3 configs. The cpu spaces depend on the host (without AVX-512 exp [1024] has 2).
  const auto [index, configs] = exp_shape_with_configs(3);
  ASSERT_GE(index, 0);
  const fs::path cache = scratch_dir("tune-twopass");
  const fs::path out = cache / "results.json";
  const std::string select = " --kernels exp --shape-index " + std::to_string(index) + " --impl kbench";

  const auto first = run_kbench_env(env_for(cache), "run --effort quick --max-evals 3" + select + fast);
  EXPECT_EQ(first.exit_code, 0) << first.output;
  EXPECT_NE(first.output.find("Configs: 1 tuned"), std::string::npos) << first.output;
  // The per-kernel tuning table: exp, 1 shape tuned, 3 configs evaluated, none failed or resumed.
  EXPECT_TRUE(
      std::regex_search(first.output, std::regex(R"((^|\n)exp +\| 1 +\| 3 +\| 0 +\| 0 +\| [0-9]+\.[0-9]\n)")))
      << first.output;

  const auto second =
      run_kbench_env(env_for(cache), "run --assert-cache-hit --output " + out.string() + select + fast);
  EXPECT_EQ(second.exit_code, 0) << second.output;
  EXPECT_NE(second.output.find("Configs: 0 tuned (0.0 s tuning), 1 from the tuning cache"), std::string::npos)
      << second.output;
  EXPECT_EQ(second.output.find("Tuning per kernel"), std::string::npos) << "nothing was tuned\n"
                                                                        << second.output;
  const auto records = read_json(out);
  bool saw_latency = false;
  for (const auto& rec : records) {
    if (rec["metric"]["name"] != "latency_ms") continue;
    saw_latency = true;
    EXPECT_EQ(rec["benchmark"]["extra_info"]["config_source"], "cache_hit");
    const auto entry = read_json(cache_files(cache).at(0));
    EXPECT_EQ(rec["benchmark"]["extra_info"]["config"].get<std::string>(), entry["best"].dump());
  }
  EXPECT_TRUE(saw_latency);

  // The environment variable does the same as the flag.
  const auto by_env = run_kbench_env(env_for(cache, "KBENCH_ASSERT_CACHE_HIT=1"), "run" + select + fast);
  EXPECT_EQ(by_env.exit_code, 0) << by_env.output;
  EXPECT_NE(by_env.output.find("1 from the tuning cache"), std::string::npos) << by_env.output;
}

TEST(TuneCli, AssertCacheHitMissFailsTheShapeWithAKeyDiff) {
  const auto [index, configs] = exp_shape_with_configs(2);
  ASSERT_GE(index, 0);
  const fs::path cache = scratch_dir("tune-miss");
  const auto tuned = run_kbench_env(
      env_for(cache), "tune --kernel exp --shape-index " + std::to_string(index) + " --max-evals 2" + fast);
  ASSERT_EQ(tuned.exit_code, 0) << tuned.output;
  const int other = index + 1;
  const auto miss =
      run_kbench_env(env_for(cache), "run --assert-cache-hit --kernels exp --impl kbench --shape-index " +
                                         std::to_string(other) + fast);
  EXPECT_EQ(miss.exit_code, 1) << miss.output;
  EXPECT_NE(miss.output.find("cache miss"), std::string::npos) << miss.output;
  const auto entry_at = miss.output.find("no tuning-cache entry");
  ASSERT_NE(entry_at, std::string::npos) << miss.output;
  EXPECT_EQ(miss.output.find("no tuning-cache entry", entry_at + 1), std::string::npos)
      << "the key diff is printed once:\n"
      << miss.output;
  EXPECT_NE(miss.output.find("source_hash"), std::string::npos) << "the key, field by field:\n"
                                                                << miss.output;
  EXPECT_NE(miss.output.find("fields that differ"), std::string::npos) << miss.output;
  EXPECT_NE(miss.output.find("      shape "), std::string::npos) << "the shape differs:\n" << miss.output;
}

TEST(TuneCli, CorruptEntryIsReportedKeptAsideAndRetuned) {
  const auto [index, configs] = exp_shape_with_configs(2);
  ASSERT_GE(index, 0);
  const fs::path cache = scratch_dir("tune-corrupt");
  const std::string tune =
      "tune --kernel exp --shape-index " + std::to_string(index) + " --max-evals 2" + fast;
  ASSERT_EQ(run_kbench_env(env_for(cache), tune).exit_code, 0);
  const auto files = cache_files(cache);
  ASSERT_EQ(files.size(), 1u);
  std::ofstream(files[0], std::ios::trunc) << "{\"format\": \"kbench-tuning-cache/1\", \"key\": {\"ker";

  const auto r = run_kbench_env(env_for(cache), tune);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("unreadable"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("2 configs evaluated"), std::string::npos) << r.output;
  EXPECT_EQ(cache_files(cache, ".corrupt-").size(), 1u);
  EXPECT_NO_THROW(read_json(files[0]));  // re-tuned and written again
}

TEST(TuneCli, InterruptedTuningResumesFromItsCheckpoint) {
  const auto [index, configs] = exp_shape_with_configs(3);
  ASSERT_GE(index, 0);
  const fs::path cache = scratch_dir("tune-resume");
  const std::string tune = "tune --kernel exp --shape-index " + std::to_string(index) +
                           " --strategy exhaustive --max-evals 3" + fast;
  ASSERT_EQ(run_kbench_env(env_for(cache), tune).exit_code, 0);
  const auto files = cache_files(cache);
  ASSERT_EQ(files.size(), 1u);
  // What an interrupted search leaves: the log so far, not complete, no best.
  auto entry = read_json(files[0]);
  entry["complete"] = false;
  entry["best"] = nullptr;
  entry["log"].erase(entry["log"].end() - 1);
  std::ofstream(files[0], std::ios::trunc) << entry.dump();

  const auto r = run_kbench_env(env_for(cache), tune);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("1 configs evaluated (0 failed, 2 resumed from a checkpoint)"), std::string::npos)
      << r.output;
  EXPECT_EQ(read_json(files[0])["log"].size(), 3u);
  EXPECT_TRUE(read_json(files[0])["complete"].get<bool>());
}

TEST(TuneCli, CacheModes) {
  const auto [index, configs] = exp_shape_with_configs(2);
  ASSERT_GE(index, 0);
  const fs::path cache = scratch_dir("tune-modes");
  const std::string tune =
      "tune --kernel exp --shape-index " + std::to_string(index) + " --max-evals 2" + fast;
  const auto no_cache = run_kbench_env(env_for(cache), tune + " --no-cache");
  EXPECT_EQ(no_cache.exit_code, 0) << no_cache.output;
  EXPECT_TRUE(cache_files(cache).empty()) << "--no-cache wrote a file";

  ASSERT_EQ(run_kbench_env(env_for(cache), tune).exit_code, 0);
  const auto hit = run_kbench_env(env_for(cache), tune);
  EXPECT_NE(hit.output.find("Cache hit"), std::string::npos) << hit.output;
  const auto forced = run_kbench_env(env_for(cache), tune + " --force-autotune");
  EXPECT_EQ(forced.exit_code, 0) << forced.output;
  EXPECT_NE(forced.output.find("2 configs evaluated"), std::string::npos) << forced.output;
}

/// The JSON line a `kbench worker` trial prints last.
nlohmann::json trial_output(const std::string& output) {
  const auto lines = lines_of(output);
  return lines.empty() ? nlohmann::json() : nlohmann::json::parse(lines.back());
}

TEST(TuneCli, ATimeTrialReTimesTheCandidateAgainstTheIncumbentOnlyWhenItIsNear) {
  const auto [index, configs] = exp_shape_with_configs(2);
  ASSERT_GE(index, 0);
  // One trial request, as the tuner sends a serving worker, in the worker's one message.
  const auto trial = [index = index, configs = configs](double incumbent_ms,
                                                        std::optional<double> give_up_above = {},
                                                        bool three_configs = false) {
    nlohmann::json request = {
        {"task", "trial"},
        {"kernel", "exp"},
        {"backend", "cpu"},
        {"shape_index", index},
        {"trial",
         {{"phase", "time"},
          {"configs", {nlohmann::json::parse(configs[0]), nlohmann::json::parse(configs[1])}},
          {"target_ms", 5},
          {"retime_within", 1.5},
          {"incumbent_ms", incumbent_ms}}}};
    if (give_up_above) request["trial"]["give_up_above"] = *give_up_above;
    if (three_configs) request["trial"]["configs"].push_back(nlohmann::json::parse(configs[0]));
    return "worker '" + request.dump() + "'";
  };
  // An incumbent known at 1e9 ms: any candidate is near it, so both are timed again, interleaved.
  const auto near = run_kbench(trial(1e9));
  ASSERT_EQ(near.exit_code, 0) << near.output;
  const auto n = trial_output(near.output);
  ASSERT_EQ(n.size(), 2u) << near.output;
  for (const auto& outcome : n) {
    EXPECT_EQ(outcome["status"], "ok") << outcome;
    EXPECT_GT(outcome["retime_ms"].get<double>(), 0) << outcome;
  }
  EXPECT_GT(n[0]["time_ms"].get<double>(), 0);
  // An incumbent at 1e-9 ms: no candidate comes within 1.5x, so nothing is re-timed and the incumbent is
  // not even timed.
  const auto far = run_kbench(trial(1e-9));
  ASSERT_EQ(far.exit_code, 0) << far.output;
  const auto f = trial_output(far.output);
  ASSERT_EQ(f.size(), 2u) << far.output;
  EXPECT_GT(f[0]["time_ms"].get<double>(), 0);
  EXPECT_EQ(f[0]["retime_ms"].get<double>(), 0);
  EXPECT_EQ(f[1]["samples"].get<std::size_t>(), 0u);
  // And so far behind (more than give_up_above, 2x by default) that its first calls are its whole timing.
  EXPECT_LE(f[0]["samples"].get<std::size_t>(), 5u) << f[0];
  EXPECT_NE(f[0]["message"].get<std::string>().find("timed from"), std::string::npos) << f[0];
  const auto full = run_kbench(trial(1e-9, 0.0));
  ASSERT_EQ(full.exit_code, 0) << full.output;
  EXPECT_EQ(trial_output(full.output)[0]["message"], "") << full.output;
  // Three configs is not a time trial.
  const auto three = run_kbench(trial(1, std::nullopt, true));
  EXPECT_EQ(three.exit_code, 2) << three.output;
}

TEST(TuneCli, WithAWideRetimeWindowEveryLaterConfigIsReTimedAgainstTheBestSoFar) {
  const auto [index, configs] = exp_shape_with_configs(4);
  ASSERT_GE(index, 0);
  const fs::path cache = scratch_dir("tune-retime");
  const auto r =
      run_kbench_env(env_for(cache), "tune --kernel exp --shape-index " + std::to_string(index) +
                                         " --strategy exhaustive --max-evals 4 --retime-within 1e9" + fast);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto entry = read_json(cache_files(cache).at(0));
  ASSERT_EQ(entry["log"].size(), 4u);
  for (std::size_t i = 0; i < 4; ++i) {
    const auto& l = entry["log"][i];
    ASSERT_EQ(l["status"], "ok") << l;
    // Config 1 has no best to be compared with when it is timed, but as the first best it is re-timed
    // with config 2; every later one is within 1e9x of the best.
    EXPECT_GT(l.value("retime_ms", 0.0), 0) << "config " << i + 1 << ": " << l;
  }
  std::size_t lines = 0;
  for (std::size_t at = r.output.find("interleaved with the best so far"); at != std::string::npos;
       at = r.output.find("interleaved with the best so far", at + 1)) {
    ++lines;
  }
  EXPECT_EQ(lines, 3u) << r.output;
  const auto bad = run_kbench_env(env_for(cache), "tune --kernel exp --shape-index " + std::to_string(index) +
                                                      " --retime-within 0" + fast);
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  const auto bad_give_up =
      run_kbench_env(env_for(cache), "tune --kernel exp --shape-index " + std::to_string(index) +
                                         " --give-up-above 0.5" + fast);
  EXPECT_EQ(bad_give_up.exit_code, 2) << bad_give_up.output;
  EXPECT_NE(bad_give_up.output.find("--give-up-above must be above 1"), std::string::npos)
      << bad_give_up.output;
}

TEST(TuneCli, TheDefaultConfigIsReTimedAtTheEndEvenWhenTheSearchTimedItDuringADisturbance) {
  const auto [index, configs] = exp_shape_with_configs(3);
  ASSERT_GE(index, 0);
  const fs::path cache = scratch_dir("tune-default-retimed");
  const std::string shape = " --shape-index " + std::to_string(index);
  // The default config, as `kbench measure` names it for the cpu implementation.
  const auto plain = run_kbench("measure --kernel exp --backend cpu --target-ms 5" + shape);
  ASSERT_EQ(plain.exit_code, 0) << plain.output;
  std::smatch named;
  ASSERT_TRUE(std::regex_search(plain.output, named, std::regex(R"(\n +cpu .*; config (\{.*\})\)\n)")))
      << plain.output;
  const std::string default_config = named[1];
  ASSERT_NE(std::find(configs.begin(), configs.end(), default_config), configs.end()) << default_config;

  // Every other config really is slower (2 ms more per call); the default is slowed (20 ms per call) only
  // while the search times it, as on a machine busy with something else at that moment. So its search time
  // is outside 1.5x of the best, and only the final re-timing can see that it is the fastest.
  std::string faults = "KBENCH_INJECT_TRIAL_FAULT='";
  for (const auto& c : configs) faults += "exp|" + c + (c == default_config ? "|disturbed;" : "|slow;");
  faults += "' ";
  const auto r =
      run_kbench_env(env_for(cache, faults), "tune --kernel exp --strategy exhaustive --max-evals " +
                                                 std::to_string(configs.size()) + shape + fast);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("within 1.5x of the best and the default config, interleaved"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("Best: " + default_config), std::string::npos) << r.output;
  // Every candidate's time in the final re-timing is shown, the default's marked (on a loaded machine the
  // intervals widen and it may also be marked as tying with the fastest, which then picks it by its ISA).
  EXPECT_TRUE(std::regex_search(
      r.output,
      std::regex("\n    " + std::regex_replace(default_config, std::regex(R"([{}\[\]])"), R"(\$&)") +
                 R"( [0-9.]+ ms \(99% interval of the median [0-9.]+-[0-9.]+\) \(the default config\))" +
                 R"(( \(ties with the fastest\))?\n)")))
      << r.output;
  const auto entry = read_json(cache_files(cache).at(0));
  EXPECT_EQ(entry["best"].dump(), default_config);
  for (const auto& l : entry["log"]) {
    ASSERT_EQ(l["status"], "ok") << l;
    // The search's times: the disturbed default took longest there.
    EXPECT_GE(l["time_ms"].get<double>(), l["config"].dump() == default_config ? 20.0 : 2.0) << l;
  }
}

TEST(TuneCli, InterleavedTimingLeavesOutTheFirstCallAfterASwitchAsKbenchRunDoes) {
  const auto [index, configs] = exp_shape_with_configs(3);
  ASSERT_GE(index, 0);
  const fs::path cache = scratch_dir("tune-cold-after-switch");
  // One config is as fast as exp is, but its first call after another config's takes 20 ms more (as one
  // whose helper threads fell asleep while a serial config ran); every other config takes 2 ms more a
  // call. A caller who keeps calling it sees it fast, and kbench run times it so (turns of calls, each after
  // an untimed one). Alternated call by call with another, every one of its calls would be a first one, and
  // it would lose both where the search meets it with the best so far (the first config) and in the final
  // re-timing against the default. (The gaps are wide: a loaded machine stretches the sleeps.)
  const std::string& cold = configs[1];
  std::string faults = "KBENCH_INJECT_TRIAL_FAULT='";
  for (const auto& c : configs) faults += "exp|" + c + (c == cold ? "|cold_after_switch;" : "|slow;");
  faults += "' ";
  // 200 ms of calls: 25 or more per config even when the machine is loaded (a 2 ms sleep then takes up to
  // 8 ms), enough for turns of 4 or more.
  const auto r = run_kbench_env(
      env_for(cache, faults), "tune --kernel exp --strategy exhaustive --max-evals " +
                                  std::to_string(configs.size()) + " --shape-index " + std::to_string(index) +
                                  " --backend cpu --tune-target-ms 200 --config-timeout 20");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("Best: " + cold), std::string::npos) << r.output;
  const auto entry = read_json(cache_files(cache).at(0));
  EXPECT_EQ(entry["best"].dump(), cold);
  EXPECT_LT(entry["best_time_ms"].get<double>(), 20.0) << entry.dump();
  // Its interleaved time with the first config is that of its own calls, not of those after a switch.
  bool met_another = false;
  for (const auto& l : entry["log"]) {
    ASSERT_EQ(l["status"], "ok") << l;
    if (l["config"].dump() == cold && l.contains("retime_ms")) {
      met_another = true;
      EXPECT_LT(l["retime_ms"].get<double>(), 20.0) << l;
    }
  }
  EXPECT_TRUE(met_another) << entry.dump();
}

TEST(TuneCli, SimulationPrintsTheMeanAndTheSpreadOverRunsOfEveryStrategy) {
  const fs::path space = tuning_spaces_dir() / "convolution_A4000.json.gz";
  const auto r =
      run_kbench("tune --simulate " + space.string() + " --strategy bayes_subspace --runs 6 --max-evals 30");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("Mean fraction of the optimum"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("Spread over the runs"), std::string::npos) << r.output;
  // Budgets 25 and 30 (the largest), a row for the strategy and one for the random baseline in each table.
  const std::regex mean_row(R"(bayes_subspace \(default\) *\| 0\.\d{3} *\| 0\.\d{3})");
  const std::regex spread_row(
      R"(bayes_subspace \(default\) *\| 0\.\d\d 0\.\d\d +\d+% *\| 0\.\d\d 0\.\d\d +\d+%)");
  EXPECT_TRUE(std::regex_search(r.output, mean_row)) << r.output;
  EXPECT_TRUE(std::regex_search(r.output, spread_row)) << r.output;
  const std::regex baseline(R"(random sampling \(baseline\) *\| 0\.\d\d 0\.\d\d +\d+%)");
  EXPECT_TRUE(std::regex_search(r.output, baseline)) << r.output;
}

TEST(TuneCli, BadTuningInputExitsTwo) {
  const auto strategy = run_kbench("run --kernels exp --effort quick --strategy annealing --backend cpu");
  EXPECT_EQ(strategy.exit_code, 2) << strategy.output;
  EXPECT_NE(strategy.output.find("valid: "), std::string::npos) << strategy.output;
  const auto effort = run_kbench("run --kernels exp --effort thorough --backend cpu");
  EXPECT_EQ(effort.exit_code, 2) << effort.output;
  EXPECT_NE(effort.output.find("valid: none, quick, full"), std::string::npos) << effort.output;
  const auto modes = run_kbench("run --kernels exp --assert-cache-hit --no-cache --backend cpu");
  EXPECT_EQ(modes.exit_code, 2) << modes.output;
  const auto no_space = run_kbench("tune --kernel nope --backend cpu");
  EXPECT_EQ(no_space.exit_code, 2) << no_space.output;
  const auto neither = run_kbench("tune");
  EXPECT_EQ(neither.exit_code, 2) << neither.output;
}

TEST(TuneCli, AShapeIsChosenByValueAsInMeasureOrByIndex) {
  const auto by_value = run_kbench("tune --kernel add --backend cpu --shape [2048,2048] --show-space");
  const auto by_index = run_kbench("tune --kernel add --backend cpu --shape-index 4 --show-space");
  const auto first = run_kbench("tune --kernel add --backend cpu --show-space");
  ASSERT_EQ(by_value.exit_code, 0) << by_value.output;
  ASSERT_EQ(by_index.exit_code, 0) << by_index.output;
  EXPECT_FALSE(by_value.output.empty());
  EXPECT_EQ(by_value.output, by_index.output);
  EXPECT_NE(by_value.output, first.output) << "add's spaces differ by shape (TASK follows the size)";
  const auto unknown = run_kbench("tune --kernel add --backend cpu --shape [100,100]");
  EXPECT_EQ(unknown.exit_code, 2) << unknown.output;
  EXPECT_NE(unknown.output.find("unknown shape [100,100] for kernel 'add' (valid: [128,128] [256,256]"),
            std::string::npos)
      << unknown.output;
  const auto both = run_kbench("tune --kernel add --backend cpu --shape [128,128] --shape-index 0");
  EXPECT_EQ(both.exit_code, 2) << both.output;
  const auto negative = run_kbench("tune --kernel add --backend cpu --shape-index -1 --show-space");
  EXPECT_EQ(negative.exit_code, 2) << negative.output;
}

TEST(TuneCli, SigkillDuringATrialLeavesNoWorkerAndKeepsTheCheckpoint) {
  const auto [index, configs] = exp_shape_with_configs(2);
  ASSERT_GE(index, 0) << "exp needs a cpu tuning space with 2 configs on some shape";
  const fs::path cache = scratch_dir("tune-sigkill");
  const std::string marker = "KBENCH_TEST_MARK=tune-sigkill-" + std::to_string(::getpid());
  // The second config hangs: kbench is killed while its trial worker waits, and the worker must go too;
  // the first config's outcome stays in the tuning cache, for the next search to resume from.
  const auto r =
      run_and_signal(env_for(cache, "KBENCH_INJECT_TRIAL_FAULT='exp|" + configs[1] + "|hang'"), marker,
                     "tune --kernel exp --shape-index " + std::to_string(index) +
                         " --backend cpu --strategy exhaustive --max-evals 2 --tune-target-ms 5 "
                         "--config-timeout 300",
                     cache / "log", "config   1 ", "KILL");
  EXPECT_EQ(r.exit_code, 128 + SIGKILL) << r.output;
  EXPECT_TRUE(wait_for([&] { return processes_marked(marker) == 0; }, 2)) << "a worker outlived kbench";
  const auto files = cache_files(cache);
  ASSERT_EQ(files.size(), 1u) << r.output;
  const auto entry = read_json(files[0]);
  EXPECT_FALSE(entry.at("complete").get<bool>());
  EXPECT_EQ(entry.at("log").size(), 1u);
}

TEST(TuneCli, ASecondSigtermDuringTuningLeavesOnlyRealOutcomesInTheCheckpoint) {
  const auto [index, configs] = exp_shape_with_configs(2);
  ASSERT_GE(index, 0) << "exp needs a cpu tuning space with 2 configs on some shape";
  const fs::path cache = scratch_dir("tune-sigterm");
  const std::string marker = "KBENCH_TEST_MARK=tune-sigterm-" + std::to_string(::getpid());
  // kbench run tunes the shape; the second config hangs. Two SIGTERMs stop the run at once: the trial that
  // was cut short must not be logged as the config's failure, or the next search would skip it.
  const auto r =
      run_and_signal(env_for(cache, "KBENCH_INJECT_TRIAL_FAULT='exp|" + configs[1] + "|hang'"), marker,
                     "run --kernel exp --impl kbench --shape-index " + std::to_string(index) +
                         " --backend cpu --effort quick --strategy exhaustive --max-evals 2 "
                         "--tune-target-ms 5 --config-timeout 300 --target-ms 5",
                     cache / "log", "config   1 ", "TERM TERM");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("tuning stopped: kbench was interrupted"), std::string::npos) << r.output;
  EXPECT_TRUE(wait_for([&] { return processes_marked(marker) == 0; }, 2)) << "a worker outlived kbench";
  const auto files = cache_files(cache);
  ASSERT_EQ(files.size(), 1u) << r.output;
  const auto entry = read_json(files[0]);
  EXPECT_FALSE(entry.at("complete").get<bool>());
  ASSERT_EQ(entry.at("log").size(), 1u) << entry.dump(1);
  EXPECT_EQ(entry["log"][0]["status"], "ok");
}

}  // namespace
}  // namespace kbench::test
