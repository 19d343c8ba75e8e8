#pragma once
// The autotuner's unit of work, run inside a fresh `kbench worker` process (never in the tuning process: a
// config that crashes or hangs costs only its worker). Three phases:
//   compile  binds each config (builds the program; for OpenCL the driver's on-disk program cache then makes
//            the later timing worker's build a cache hit), no timing. Run in parallel, one per core.
//   time     binds one config, checks its output against the torch reference, then times it with the
//            synchronized wall latency (the median of compute_repeat calls filling target_ms). Given a
//            second config, the search's best so far (`incumbent`, timed at incumbent_ms), and a first
//            config that came within retime_within of it, builds and checks the incumbent (only then: a
//            far candidate costs no second build) and times the two again interleaved, so that the search
//            compares them under the same machine conditions.
//   retime   binds several configs that all passed, and times them interleaved (a, b, c, a, b, c, ...) so
//            that the final pick is not decided by drift in the machine.

#include <kbench/config.hpp>
#include <kbench/kernel.hpp>
#include <kbench/tune/evaluation.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kbench::runner {

enum class trial_phase { compile, time, retime };
[[nodiscard]] std::string_view to_string(trial_phase phase);
/// Throws usage_error listing the valid names.
[[nodiscard]] trial_phase parse_trial_phase(std::string_view name);

struct trial_request {
  backend_kind backend = backend_kind::cpu;
  std::uint64_t seed = 0;
  trial_phase phase = trial_phase::time;
  std::vector<config>
      configs;              // one for compile, one or two (candidate, incumbent) for time, several for retime
  double target_ms = 50;    // [ms] the budget the timed calls fill (retime: per config)
  double incumbent_ms = 0;  // [ms] time: the incumbent's best known time (with a second config)
  double retime_within = 1.5;  // [ratio] time: the candidate is re-timed against the incumbent if within
};

struct trial_outcome {
  config values;
  tune::eval_status status = tune::eval_status::ok;
  double time_ms = 0;    // [ms] median synchronized wall latency; 0 unless timed and ok
  double retime_ms = 0;  // [ms] median when timed interleaved with the incumbent (time phase); 0 if not
  std::size_t samples = 0;
  double build_s = 0;   // [s] binding (program build) time
  std::string message;  // why it failed
};

void to_json(nlohmann::json& j, const trial_outcome& t);
void from_json(const nlohmann::json& j, trial_outcome& t);

/// Runs the request on `kernel` at shape `shape_index` in this process; one outcome per config, in order.
/// Failures of a config (build error, exception, wrong result, broken sync) become its status; only a crash
/// or a hang escapes, and the parent sees those as the worker's death or timeout.
[[nodiscard]] std::vector<trial_outcome> run_trial(const kernel_definition& kernel, std::size_t shape_index,
                                                   const trial_request& request);

}  // namespace kbench::runner
