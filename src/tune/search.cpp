#include <kbench/error.hpp>
#include <kbench/tune/search.hpp>

#include <fmt/format.h>

#include <chrono>

namespace kbench::tune {

effort_settings effort_settings_for(std::string_view level) {
  if (level == "none") return {};
  if (level == "quick") return {std::string(default_strategy_name()), {50, 120.0}};
  if (level == "full") return {std::string(default_strategy_name()), {200, 900.0}};
  throw usage_error(fmt::format("unknown effort '{}' (valid: none, quick, full)", level));
}

search_result run_search(strategy& search, const evaluate_function& evaluate, const search_budget& budget,
                         const clock_function& clock) {
  const clock_function now = clock ? clock : [] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  };
  const double start = now();
  search_result result;
  for (;;) {
    if (budget.max_evals != 0 && result.log.size() >= budget.max_evals) break;
    if (budget.time_budget_s > 0 && now() - start >= budget.time_budget_s) break;
    const std::optional<config_id> id = search.ask();
    if (!id) break;  // every config evaluated
    evaluation e = evaluate(*id);
    if (e.id != *id) KBENCH_THROW("the evaluator returned config {} for config {}", e.id, *id);
    search.tell(e);
    if (e.ok() && (!result.best || e.time_ms < result.best->time_ms)) result.best = e;
    result.log.push_back(e);
  }
  return result;
}

}  // namespace kbench::tune
