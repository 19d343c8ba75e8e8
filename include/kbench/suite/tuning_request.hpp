#pragma once
// What a user asks of tuning (the flags `kbench run`, `kbench tune` and `python -m kbench run` share), and
// how it becomes the tuner's options with an effort level's strategy and budget: decided here once, for
// every front-end.

#include <kbench/device.hpp>
#include <kbench/suite/tune_shape.hpp>
#include <kbench/timing_budget.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

namespace kbench::suite {

struct tuning_request {
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

/// Set to 1, asks for --assert-cache-hit without the flag (a CI job's environment).
inline constexpr const char* assert_cache_hit_variable = "KBENCH_ASSERT_CACHE_HIT";

/// The tuning options of an effort level (none, quick, full) plus the request. Throws usage_error on an
/// unknown effort or strategy or contradictory flags.
[[nodiscard]] tuning_options tuning_options_from(const tuning_request& request, const std::string& effort,
                                                 backend_kind backend, std::uint64_t seed);

}  // namespace kbench::suite
