#pragma once
// The tuning options `kbench run` and `kbench tune` share, and how they become suite::tuning_options.

#include <kbench/error.hpp>
#include <kbench/suite/tune_shape.hpp>
#include <kbench/timing_budget.hpp>
#include <kbench/tune/search.hpp>
#include <kbench/tune/strategy.hpp>

#include "numeric_option.hpp"

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <cstdlib>
#include <string>

namespace kbench::cli {

struct tuning_flags {
  std::string strategy;       // empty: the effort's strategy
  std::size_t max_evals = 0;  // 0: the effort's
  double time_budget_s = 0;   // [s] per kernel x shape; 0: the effort's
  bool assert_cache_hit = false;
  bool force_autotune = false;
  bool no_cache = false;
  double config_timeout_s = default_timing_budget.config_timeout_s;  // [s]
  double tune_target_ms = default_timing_budget.tune_target_ms;      // [ms]
  double retime_within = default_timing_budget.retime_within;        // [ratio to the best so far]
  double give_up_above = default_timing_budget.give_up_above;        // [ratio to the best so far]; 0: never
};

/// `with_search_flags` false leaves out --strategy and --max-evals (`kbench tune` has its own).
inline void add_tuning_flags(CLI::App& app, tuning_flags& flags, bool with_search_flags = true) {
  if (with_search_flags) {
    app.add_option("--strategy", flags.strategy,
                   fmt::format("Search strategy (default: {}); see `kbench tune --simulate`",
                               tune::default_strategy_name()));
    app.add_option("--max-evals", flags.max_evals,
                   "Configs evaluated per kernel x shape (default: the effort's)")
        ->check(number_in(1, 1e7, true));
  }
  app.add_option("--time-budget", flags.time_budget_s,
                 "Seconds of tuning per kernel x shape (default: the effort's)")
      ->check(number_in(0.001, 1e7));
  app.add_flag("--assert-cache-hit", flags.assert_cache_hit,
               "A shape without a tuned config in the cache fails (also KBENCH_ASSERT_CACHE_HIT=1)");
  app.add_flag("--force-autotune", flags.force_autotune,
               "Tune again, ignoring cached configs (still writes)");
  app.add_flag("--no-cache", flags.no_cache, "Neither read nor write the tuning cache");
  app.add_option("--config-timeout", flags.config_timeout_s,
                 "Seconds one config may take to build, check and time")
      ->capture_default_str()
      ->check(number_in(0.001, 1e6));
  app.add_option("--tune-target-ms", flags.tune_target_ms, "Time each config's timed calls fill [ms]")
      ->capture_default_str()
      ->check(number_in(0.001, 600000));
  app.add_option("--retime-within", flags.retime_within,
                 "A config timed within this ratio of the best so far is timed again, interleaved with it")
      ->capture_default_str()
      ->check(number_in(1, 1e12));
  app.add_option(
         "--give-up-above", flags.give_up_above,
         "A config whose first calls all take more than this ratio of the best so far is recorded "
         "from them, without the full timing (never below --retime-within; 0: time every config in full)")
      ->capture_default_str()
      ->check(number_in(0, 1e12));
}

/// The tuning options of an effort level plus the flags. Throws usage_error on an unknown effort or strategy
/// or contradictory flags.
inline suite::tuning_options tuning_options_from(const tuning_flags& flags, const std::string& effort,
                                                 backend_kind backend, std::uint64_t seed) {
  const tune::effort_settings settings = tune::effort_settings_for(effort);
  suite::tuning_options options;
  options.backend = backend;
  options.seed = seed;
  options.strategy = settings.strategy;
  options.budget = settings.budget;
  if (!flags.strategy.empty()) {
    const tune::enumerated_space probe({tune::parameter::boolean("x")}, {{0}});
    (void)tune::make_strategy(flags.strategy, probe, {});  // validates the name (usage_error lists them)
    if (effort == "none") throw usage_error("--strategy needs --effort quick or full");
    options.strategy = flags.strategy;
  }
  if (flags.max_evals != 0) options.budget.max_evals = flags.max_evals;
  if (flags.time_budget_s > 0) options.budget.time_budget_s = flags.time_budget_s;
  const char* env = std::getenv("KBENCH_ASSERT_CACHE_HIT");
  options.assert_cache_hit = flags.assert_cache_hit || (env != nullptr && std::string(env) == "1");
  if (flags.no_cache && flags.force_autotune)
    throw usage_error("--no-cache and --force-autotune exclude each other");
  if (options.assert_cache_hit && (flags.no_cache || flags.force_autotune)) {
    throw usage_error("--assert-cache-hit needs the cache: drop --no-cache / --force-autotune");
  }
  options.cache = flags.no_cache         ? suite::cache_mode::off
                  : flags.force_autotune ? suite::cache_mode::write_only
                                         : suite::cache_mode::read_write;
  if (!(flags.config_timeout_s > 0)) throw usage_error("--config-timeout must be positive");
  options.trial_timeout_s = flags.config_timeout_s;
  if (!(flags.retime_within > 0)) throw usage_error("--retime-within must be positive");
  options.retime_within = flags.retime_within;
  if (!(flags.give_up_above == 0 || flags.give_up_above > 1)) {
    throw usage_error("--give-up-above must be above 1 (a ratio to the best so far), or 0 for never");
  }
  options.give_up_above = flags.give_up_above;
  options.compile_timeout_s = flags.config_timeout_s;
  options.target_ms = flags.tune_target_ms;
  return options;
}

}  // namespace kbench::cli
