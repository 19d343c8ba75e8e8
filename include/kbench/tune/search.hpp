#pragma once
// The search loop: ask a strategy, evaluate, tell, until the budget (evaluations and/or seconds) is spent or
// the space is exhausted.

#include <kbench/tune/evaluation.hpp>
#include <kbench/tune/strategy.hpp>

#include <cstddef>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

namespace kbench::tune {

struct search_budget {
  std::size_t max_evals = 0;  // evaluations, failed ones included; 0: no limit
  double time_budget_s = 0;   // [s] wall time; no new config is proposed once it is spent; 0: no limit
};

/// `kbench run --effort`: none = the default config, untuned; quick = the default strategy for at most 50
/// evaluations or 120 s per kernel x shape; full = the default strategy for at most 200 evaluations or 900 s.
/// Budgets in evaluations follow the simulation figures (on the shared spaces bayes_subspace reaches a mean
/// 0.85-0.94 of the optimum at 50 evaluations and 0.998-1.0 at 200); the seconds bound a slow compiler.
struct effort_settings {
  std::string strategy;  // empty for none
  search_budget budget;
};
/// Parses none|quick|full; throws usage_error otherwise.
[[nodiscard]] effort_settings effort_settings_for(std::string_view level);

struct search_result {
  std::vector<evaluation> log;     // in evaluation order
  std::optional<evaluation> best;  // fastest ok evaluation; nullopt when none succeeded
};

using evaluate_function = std::function<evaluation(config_id)>;
/// Monotonic time in seconds; tests inject a fake one.
using clock_function = std::function<double()>;

/// Runs `search` until the budget is spent or the strategy has proposed every config.
/// An evaluation in progress when the time budget runs out completes (the evaluator bounds its own time).
[[nodiscard]] search_result run_search(strategy& search, const evaluate_function& evaluate,
                                       const search_budget& budget, const clock_function& clock = {});

}  // namespace kbench::tune
