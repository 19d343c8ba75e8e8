#pragma once
// What the tuner and a tuning worker say to each other: a trial (its phase and configs) and one outcome per
// config, as JSON. Separate from config_trial.hpp, which runs trials, so that the tuning process can talk to
// workers without linking what a worker runs.

#include <kbench/config.hpp>
#include <kbench/device.hpp>
#include <kbench/timing_budget.hpp>
#include <kbench/tune/evaluation.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kbench::suite {

enum class trial_phase { compile, time, retime };
[[nodiscard]] std::string_view to_string(trial_phase phase);
/// Throws usage_error listing the valid names.
[[nodiscard]] trial_phase parse_trial_phase(std::string_view name);

struct trial_request {
  backend_kind backend = backend_kind::cpu;
  std::uint64_t seed = 0;
  trial_phase phase = trial_phase::time;
  std::vector<config>
      configs;  // one for compile, one or two (candidate, incumbent) for time, several for retime
  double target_ms =
      default_timing_budget.tune_target_ms;  // [ms] the budget the timed calls fill (retime: per config)
  double incumbent_ms = 0;  // [ms] time: the incumbent's best known time (with a second config)
  double retime_within =
      default_timing_budget
          .retime_within;  // [ratio] time: the candidate is re-timed against the incumbent if within
  double give_up_above =
      default_timing_budget
          .give_up_above;   // [ratio] time: a candidate whose first calls all take more than this times
                            // incumbent_ms is recorded from them, without the full timing; 0: never
  double time_limit_s = 0;  // [s] how long the parent waits for this trial (its timeout); timings whose
                            // calls are too long to fit are shortened to fit (config_trial.hpp); 0: none
};

struct trial_outcome {
  config values;
  tune::eval_status status = tune::eval_status::ok;
  double time_ms = 0;          // [ms] median synchronized wall latency; 0 unless timed and ok
  double retime_ms = 0;        // [ms] median when timed interleaved with the incumbent (time phase); 0 if not
  double time_ci_low_ms = 0;   // [ms] 99% distribution-free confidence interval of time_ms (the median);
  double time_ci_high_ms = 0;  // 0 unless timed and ok
  std::size_t samples = 0;
  double build_s = 0;   // [s] binding (program build) time
  std::string message;  // why it failed
};

void to_json(nlohmann::json& j, const trial_outcome& t);
void from_json(const nlohmann::json& j, trial_outcome& t);

/// One request as a line of JSON, for a serving worker's standard input (phase, configs, target_ms,
/// incumbent_ms, retime_within, give_up_above, time_limit_s; backend and seed belong to the worker), and
/// back.
[[nodiscard]] std::string to_request_line(const trial_request& request);
[[nodiscard]] trial_request parse_request_line(const std::string& line, backend_kind backend,
                                               std::uint64_t seed);

}  // namespace kbench::suite
