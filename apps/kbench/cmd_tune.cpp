// kbench tune: the autotuner's commands.
//   kbench tune --kernel K [--shape S | --shape-index I] [--backend B] [--effort quick|full]: tunes one
//     kernel x shape on a device (config trials in worker processes), prints every config's outcome and
//     writes the cache; `kbench run --effort ...` does the same for the whole suite.
//     With --kt-cache FILE, every evaluated config also goes to FILE in Kernel Tuner's cache format.
//   kbench tune --kernel K --show-space: the valid configs of the kernel's space on this device, one JSON
//     object per line.
//   kbench tune --simulate FILE: replays search strategies against a recorded space (a Kernel Tuner cache
//     file or a kbench config log) and scores them by the fraction of the optimum found.

#include <kbench/backends/registry.hpp>
#include <kbench/error.hpp>
#include <kbench/io/text_table.hpp>
#include <kbench/suite/registry.hpp>
#include <kbench/suite/tune_shape.hpp>
#include <kbench/tune/kernel_tuner_cache.hpp>
#include <kbench/tune/simulate.hpp>
#include <kbench/tune/strategy.hpp>

#include "numeric_option.hpp"
#include "shape_choice.hpp"
#include "spec_files.hpp"
#include "subcommand.hpp"
#include "tuning_flags.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <limits>
#include <memory>

namespace kbench::cli {
using namespace kbench::suite;  // the suite's kernel API, unqualified

namespace {

// The simulation's spread table counts the runs whose best config reached this fraction of the optimum
// (t_opt / t_found): on a rugged space the mean mixes runs that found the optimum with runs left in a trap.
constexpr double spread_threshold = 0.9;

struct tune_options {
  std::string simulate;          // recorded space file; empty = not simulating
  std::string strategy = "all";  // a strategy name or "all"
  std::size_t max_evals = 200;   // the largest budget [evaluations]
  std::size_t runs = 100;        // seeded runs per budget
  std::uint64_t seed = 1;        // first seed; run i uses seed + i
  bool max_evals_given = false;  // --max-evals on the command line (tuning a kernel keeps the effort's)
  // Tuning a kernel on a device:
  std::string kernel;
  std::vector<std::string> specs;  // spec files to load (--spec)
  std::string shape;               // one of the kernel's shapes
  int shape_index = -1;            // alternative to shape; neither: the first shape
  std::string backend = "auto";
  std::string effort = "quick";
  bool show_space = false;
  std::string kt_cache;  // Kernel Tuner cache file to write the evaluated configs to; empty: none
  tuning_flags flags;
};

backend_kind device_backend(const std::string& name) {
  std::vector<std::string> valid{"auto"};
  for (backend_kind kind : all_backend_kinds()) {
    if (kind != backend_kind::torch) valid.emplace_back(to_string(kind));
  }
  if (std::find(valid.begin(), valid.end(), name) == valid.end()) {
    throw usage_error(fmt::format("unknown backend '{}' (valid: {})", name, fmt::join(valid, ", ")));
  }
  return name == "auto" ? pick_auto_backend() : parse_backend_kind(name);
}

int tune_kernel(const tune_options& options) {
  const kernel_definition& kernel =
      find_kernel(chosen_kernel(options.kernel, load_spec_files(options.specs)));
  const std::size_t shape_index = choose_shape_index(kernel, options.shape, options.shape_index);
  const backend_kind backend = device_backend(options.backend);
  const implementation* impl = kernel.find(backend);
  if (impl == nullptr || !impl->tuning_space) {
    throw usage_error(
        fmt::format("kernel '{}' has no tuning space on backend {}", kernel.name, to_string(backend)));
  }
  tuning_flags flags = options.flags;
  if (options.strategy != "all") flags.strategy = options.strategy;
  if (options.max_evals_given) flags.max_evals = options.max_evals;
  suite::tuning_options tuning = tuning_options_from(flags, options.effort, backend, options.seed);
  if (tuning.strategy.empty()) throw usage_error("kbench tune needs --effort quick or full");
  const device_info device = open_device(backend)->info();
  const tune::space space = impl->tuning_space(kernel.shapes[shape_index]);
  const tune::enumerated_space valid = space.enumerate(device);
  if (options.show_space) {
    for (tune::config_id id = 0; id < valid.size(); ++id)
      fmt::print("{}\n", to_json_text(valid.to_config(id)));
    return 0;
  }
  const tune::kernel_tuner_header kt_header{kernel.name, device.name, kernel.shapes[shape_index],
                                            space.parameters()};
  if (!options.kt_cache.empty()) tune::check_kernel_tuner_cache(options.kt_cache, kt_header);
  fmt::print(
      "Tuning {} {} on {} ({}): {} valid configs ({} before constraints), strategy {}, budget {} configs / "
      "{:.0f} s\n",
      kernel.name, to_string(kernel.shapes[shape_index]), to_string(backend), device.name, valid.size(),
      valid.cartesian_size(), tuning.strategy, tuning.budget.max_evals, tuning.budget.time_budget_s);
  std::fflush(stdout);
  tuning.progress = [](const std::string& line) {
    fmt::print("{}\n", line);
    std::fflush(stdout);
  };
  const suite::tuning_outcome outcome = suite::choose_config(kernel, shape_index, device, tuning);
  for (const auto& w : outcome.warnings) fmt::print(stderr, "[kbench] {}\n", w);
  if (!options.kt_cache.empty() && !outcome.log.empty()) {
    const std::size_t entries =
        tune::write_kernel_tuner_cache(options.kt_cache, tune::kernel_tuner_cache(kt_header, outcome.log));
    fmt::print("Kernel Tuner cache: {} ({} configs of this search, {} in the file)\n", options.kt_cache,
               outcome.log.size(), entries);
  }
  switch (outcome.source) {
    case suite::config_source::cache_hit:
      fmt::print("Cache hit: {} ({:.4f} ms when tuned); --force-autotune tunes again\n",
                 to_json_text(outcome.chosen), outcome.best_time_ms);
      return 0;
    case suite::config_source::cache_miss:
      fmt::print(stderr, "{}", outcome.message);
      return 1;
    case suite::config_source::no_valid_config:
      fmt::print("No config passed ({} evaluated, {} failed); the default {} stays\n", outcome.evaluations,
                 outcome.failed, to_json_text(outcome.chosen));
      return 1;
    default:
      break;
  }
  fmt::print(
      "Best: {} {:.4f} ms; {} configs evaluated ({} failed, {} resumed from a checkpoint) in {:.1f} s\n",
      to_json_text(outcome.chosen), outcome.best_time_ms, outcome.evaluations, outcome.failed,
      outcome.resumed, outcome.tuning_s);
  if (outcome.key && tuning.cache != suite::cache_mode::off) {
    fmt::print("Cache: {}\n", tune::tuning_cache(tuning.cache_directory).path_of(*outcome.key).string());
  }
  return 0;
}

int run_tune(const tune_options& options) {
  const bool on_device = !options.kernel.empty() || !options.specs.empty();
  if (on_device && !options.simulate.empty()) {
    throw usage_error("--kernel or --spec and --simulate exclude each other");
  }
  if (on_device) return tune_kernel(options);
  if (!options.kt_cache.empty())
    throw usage_error("--kt-cache needs --kernel or --spec (a search on a device)");
  if (options.simulate.empty()) {
    throw usage_error(
        "kbench tune needs --kernel K or --spec FILE (tune on a device) or --simulate FILE (replay "
        "strategies "
        "on a recorded space)");
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
  io::text_table means(header);
  io::text_table spread(header);
  for (const std::string& name : strategies) {
    const auto start = std::chrono::steady_clock::now();
    const std::vector<tune::budget_outcome> outcomes = tune::simulate(recorded, name, sim);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    fmt::print(stderr, "[kbench] {}: {:.1f} s\n", name, seconds);
    std::string label = name;
    if (name == tune::default_strategy_name()) label += " (default)";
    if (name == "random") label = "random sampling (baseline)";
    std::vector<std::string> mean_row{label};
    std::vector<std::string> spread_row{label};
    for (const tune::budget_outcome& o : outcomes) {
      mean_row.push_back(fmt::format("{:.3f}", o.mean()));
      spread_row.push_back(fmt::format("{:.2f} {:.2f} {:3.0f}%", o.quantile(0.1), o.quantile(0.5),
                                       100 * o.share_reaching(spread_threshold)));
    }
    means.add_row(std::move(mean_row));
    spread.add_row(std::move(spread_row));
  }
  fmt::print(
      "Mean fraction of the optimum (t_opt / t_best_found) after N evaluations, over {} seeded runs "
      "(seeds {}..{}):\n",
      sim.runs, sim.seed, sim.seed + sim.runs - 1);
  fmt::print("{}", means.render());
  fmt::print(
      "\nSpread over the runs: 10th percentile and median of that fraction, and the share of runs whose best "
      "reached {:.2f}:\n",
      spread_threshold);
  fmt::print("{}", spread.render());
  return 0;
}

const subcommand_registration tune_command{
    "tune",
    "The autotuner: tune one kernel x shape (--kernel), or replay strategies on a recorded space "
    "(--simulate)",
    [](CLI::App& app) {
      auto options = std::make_shared<tune_options>();
      app.add_option("--simulate", options->simulate,
                     "Recorded space: a Kernel Tuner cache file or a kbench config log (.json or .json.gz)");
      app.add_option("--strategy", options->strategy,
                     fmt::format("Strategy to score, or all ({})", fmt::join(tune::strategy_names(), ", ")))
          ->capture_default_str();
      app.add_option("--max-evals", options->max_evals,
                     "Largest budget [evaluations]; scored at 25, 50, 100, 200 up to it, and at it")
          ->capture_default_str()
          ->check(count_in(1, 1e7));
      app.add_option("--runs", options->runs, "Seeded runs per budget")
          ->capture_default_str()
          ->check(count_in(1, 1e5));
      app.add_option("--seed", options->seed,
                     "First seed (run i uses seed + i); the search's seed with --kernel")
          ->capture_default_str()
          ->check(any_seed());
      auto* max_evals = app.get_option("--max-evals");
      app.add_option("--kernel,--op", options->kernel, "Tune this kernel on a device (see `kbench list`)");
      app.add_option("--spec", options->specs, "Tune the kernel described in this file (docs/specs.md)");
      auto* shape = app.add_option("--shape", options->shape, "Shape, e.g. 104857600 or [1024,256]");
      app.add_option("--shape-index", options->shape_index, "Index into the kernel's shapes (default 0)")
          ->check(CLI::Range(0, std::numeric_limits<int>::max()))
          ->excludes(shape);
      app.add_option("--backend", options->backend, "auto, cpu, opencl or cuda")->capture_default_str();
      app.add_option("--effort", options->effort, "quick (<= 50 configs or 120 s) or full (<= 200 or 900 s)")
          ->capture_default_str();
      app.add_flag("--show-space", options->show_space, "Print the valid configs on this device and exit");
      app.add_option("--kt-cache", options->kt_cache,
                     "Also write every evaluated config to this file in Kernel Tuner's cache format "
                     "(added to an existing cache of the same kernel, device, shape and parameters)");
      add_tuning_flags(app, options->flags, /*with_search_flags=*/false);
      return [options, max_evals] {
        options->max_evals_given = max_evals->count() > 0;
        return run_tune(*options);
      };
    }};

}  // namespace

}  // namespace kbench::cli
