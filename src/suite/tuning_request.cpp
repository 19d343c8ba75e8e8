#include <kbench/error.hpp>
#include <kbench/suite/tuning_request.hpp>
#include <kbench/tune/search.hpp>
#include <kbench/tune/strategy.hpp>

#include <cstdlib>

namespace kbench::suite {

tuning_options tuning_options_from(const tuning_request& request, const std::string& effort,
                                   backend_kind backend, std::uint64_t seed) {
  const tune::effort_settings settings = tune::effort_settings_for(effort);
  tuning_options options;
  options.backend = backend;
  options.seed = seed;
  options.strategy = settings.strategy;
  options.budget = settings.budget;
  if (!request.strategy.empty()) {
    const tune::enumerated_space probe({tune::parameter::boolean("x")}, {{0}});
    (void)tune::make_strategy(request.strategy, probe, {});  // validates the name (usage_error lists them)
    if (effort == "none") throw usage_error("--strategy needs --effort quick or full");
    options.strategy = request.strategy;
  }
  if (request.max_evals != 0) options.budget.max_evals = request.max_evals;
  if (request.time_budget_s > 0) options.budget.time_budget_s = request.time_budget_s;
  const char* env = std::getenv(assert_cache_hit_variable);
  options.assert_cache_hit = request.assert_cache_hit || (env != nullptr && std::string(env) == "1");
  if (request.no_cache && request.force_autotune)
    throw usage_error("--no-cache and --force-autotune exclude each other");
  if (options.assert_cache_hit && (request.no_cache || request.force_autotune)) {
    throw usage_error("--assert-cache-hit needs the cache: drop --no-cache / --force-autotune");
  }
  options.cache = request.no_cache         ? cache_mode::off
                  : request.force_autotune ? cache_mode::write_only
                                           : cache_mode::read_write;
  if (!(request.config_timeout_s > 0)) throw usage_error("--config-timeout must be positive");
  options.trial_timeout_s = request.config_timeout_s;
  if (!(request.retime_within > 0)) throw usage_error("--retime-within must be positive");
  options.retime_within = request.retime_within;
  if (!(request.give_up_above == 0 || request.give_up_above > 1)) {
    throw usage_error("--give-up-above must be above 1 (a ratio to the best so far), or 0 for never");
  }
  options.give_up_above = request.give_up_above;
  options.compile_timeout_s = request.config_timeout_s;
  options.target_ms = request.tune_target_ms;
  return options;
}

}  // namespace kbench::suite
