#pragma once
// The tuning flags `kbench run` and `kbench tune` share, bound into the suite's tuning_request.

#include <kbench/error.hpp>
#include <kbench/suite/tuning_request.hpp>
#include <kbench/timing_budget.hpp>
#include <kbench/tune/search.hpp>
#include <kbench/tune/strategy.hpp>

#include "numeric_option.hpp"

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <cstdlib>
#include <string>

namespace kbench::cli {

using tuning_flags = suite::tuning_request;

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

using suite::tuning_options_from;

}  // namespace kbench::cli
