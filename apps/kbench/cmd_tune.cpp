// kbench tune: the autotuner's commands. Today: --simulate, which replays search strategies against a
// recorded space (a Kernel Tuner cache file or a kbench config log) and scores them by the fraction of the
// optimum found. Tuning a kernel on a device belongs to `kbench run --effort quick|full`.

#include <kbench/error.hpp>
#include <kbench/tune/simulate.hpp>
#include <kbench/tune/strategy.hpp>

#include "subcommand.hpp"
#include "text_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>

namespace kbench::cli {

namespace {

struct tune_options {
  std::string simulate;          // recorded space file; empty = not simulating
  std::string strategy = "all";  // a strategy name or "all"
  std::size_t max_evals = 200;   // the largest budget [evaluations]
  std::size_t runs = 100;        // seeded runs per budget
  std::uint64_t seed = 1;        // first seed; run i uses seed + i
};

int run_tune(const tune_options& options) {
  if (options.simulate.empty()) {
    fmt::print(
        stderr,
        "kbench tune: tuning a kernel on a device will be done by `kbench run --effort quick|full`, which is "
        "not built yet.\nWhat works today: kbench tune --simulate FILE [--strategy S|all] [--max-evals N] "
        "[--runs R] [--seed S]\n");
    return 2;
  }
  if (options.max_evals == 0) throw usage_error("--max-evals must be at least 1");
  if (options.runs == 0) throw usage_error("--runs must be at least 1");

  std::vector<std::string> strategies;
  if (options.strategy == "all") {
    for (const std::string& name : tune::strategy_names()) {
      if (name != "random") strategies.push_back(name);
    }
  } else {
    // Validates the name before the (possibly slow) load.
    const tune::enumerated_space probe({tune::parameter::boolean("x")}, {{0}});
    (void)tune::make_strategy(options.strategy, probe, {});
    if (options.strategy != "random") strategies.push_back(options.strategy);
  }
  strategies.push_back("random");  // the baseline, always last

  const tune::recorded_space recorded = tune::load_recorded_space(options.simulate);
  std::size_t failed = 0;
  for (const tune::evaluation& e : recorded.outcomes) failed += e.ok() ? 0 : 1;
  fmt::print("Recorded space: {} ({})\n", recorded.description, options.simulate);
  fmt::print("Space size: {} configs ({} before constraints), {} with a time, {} failed\n",
             recorded.space.size(), recorded.space.cartesian_size(), recorded.space.size() - failed, failed);
  if (!recorded.optimum)
    throw usage_error(fmt::format("{}: no config has a time; nothing to find", options.simulate));
  fmt::print("Optimum: {:.4f} ms {}\n", recorded.outcomes[*recorded.optimum].time_ms,
             to_json_text(recorded.space.to_config(*recorded.optimum)));

  tune::simulation_options sim;
  sim.runs = options.runs;
  sim.seed = options.seed;
  sim.budgets.clear();
  for (const std::size_t b : {25, 50, 100, 200}) {
    if (b <= options.max_evals) sim.budgets.push_back(b);
  }
  if (sim.budgets.empty() || sim.budgets.back() != options.max_evals)
    sim.budgets.push_back(options.max_evals);

  std::vector<std::string> header{"Strategy"};
  for (const std::size_t b : sim.budgets) header.push_back(fmt::format("@{}", b));
  text_table table(std::move(header));
  for (const std::string& name : strategies) {
    const auto start = std::chrono::steady_clock::now();
    const std::vector<double> fractions = tune::simulate(recorded, name, sim);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    fmt::print(stderr, "[kbench] {}: {:.1f} s\n", name, seconds);
    std::string label = name;
    if (name == tune::default_strategy_name()) label += " (default)";
    if (name == "random") label = "random sampling (baseline)";
    std::vector<std::string> row{label};
    for (const double f : fractions) row.push_back(fmt::format("{:.3f}", f));
    table.add_row(std::move(row));
  }
  fmt::print(
      "Mean fraction of the optimum (t_opt / t_best_found) after N evaluations, over {} seeded runs "
      "(seeds {}..{}):\n",
      sim.runs, sim.seed, sim.seed + sim.runs - 1);
  fmt::print("{}", table.render());
  return 0;
}

const subcommand_registration tune_command{
    "tune", "The autotuner: --simulate replays search strategies on a recorded tuning space",
    [](CLI::App& app) {
      auto options = std::make_shared<tune_options>();
      app.add_option("--simulate", options->simulate,
                     "Recorded space: a Kernel Tuner cache file or a kbench config log (.json or .json.gz)");
      app.add_option("--strategy", options->strategy,
                     fmt::format("Strategy to score, or all ({})", fmt::join(tune::strategy_names(), ", ")))
          ->capture_default_str();
      app.add_option("--max-evals", options->max_evals,
                     "Largest budget [evaluations]; scored at 25, 50, 100, 200 up to it, and at it")
          ->capture_default_str();
      app.add_option("--runs", options->runs, "Seeded runs per budget")->capture_default_str();
      app.add_option("--seed", options->seed, "First seed (run i uses seed + i)")->capture_default_str();
      return [options] { return run_tune(*options); };
    }};

}  // namespace

}  // namespace kbench::cli
