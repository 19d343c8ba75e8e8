#include <kbench/backends/registry.hpp>
#include <kbench/bench.hpp>
#include <kbench/error.hpp>
#include <kbench/stats.hpp>
#include <kbench/suite/accuracy.hpp>
#include <kbench/suite/bound_kernel.hpp>
#include <kbench/suite/detail/config_trial.hpp>
#include <kbench/suite/reference.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <memory>
#include <span>
#include <thread>

namespace kbench::suite {

namespace {

using json = nlohmann::json;
using tune::eval_status;

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// KBENCH_INJECT_TRIAL_FAULT="kernel|{config json}|fault[;...]" makes the matching config fail for real
/// while it is timed, to test that tuning records each with its status and goes on (tests/cli). Faults:
/// segv (the worker dies on SIGSEGV), hang (it never returns), wrong (its output is corrupted before the
/// check); and two that only slow its timed calls down: slow (every timed call sleeps slow_fault_ms first)
/// and disturbed (every timed call of a time trial, the search's, sleeps disturbed_fault_ms first, as if
/// the machine was busy with something else then; the final re-timing is not slowed); and one that slows
/// the first call after a switch: cold_after_switch (a call that follows a call of another config sleeps
/// switch_fault_ms first, as a config whose helper threads fell asleep while another config ran). Unset in
/// normal use.
std::string injected_fault(const kernel_definition& kernel, const config& values) {
  const char* spec = std::getenv("KBENCH_INJECT_TRIAL_FAULT");
  if (spec == nullptr) return {};
  const std::string wanted = kernel.name + "|" + to_json_text(values) + "|";
  std::string text(spec);
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find(';', start), text.size());
    const std::string item = text.substr(start, end - start);
    if (item.rfind(wanted, 0) == 0) return item.substr(wanted.size());
    start = end + 1;
  }
  return {};
}

constexpr auto slow_fault_ms = std::chrono::milliseconds(2);
constexpr auto disturbed_fault_ms = std::chrono::milliseconds(20);
constexpr auto switch_fault_ms = std::chrono::milliseconds(20);

/// `target` with the sleep of a slow or disturbed fault (above) before each call, in `phase`.
bench_target slowed_by(const std::string& fault, trial_phase phase, bench_target target) {
  std::chrono::milliseconds pause{0};
  if (fault == "slow") pause = slow_fault_ms;
  if (fault == "disturbed" && phase == trial_phase::time) pause = disturbed_fault_ms;
  if (pause.count() == 0 || !target.call) return target;
  target.call = [inner = std::move(target.call), pause] {
    std::this_thread::sleep_for(pause);
    return inner();
  };
  return target;
}

/// The cold_after_switch fault (above): when `faults` (one per target) names it, every target records that
/// it was the last one called, and a call of a target with the fault that follows another's sleeps
/// switch_fault_ms first.
void add_switch_faults(const std::vector<std::string>& faults, std::vector<bench_target>& targets) {
  if (std::find(faults.begin(), faults.end(), "cold_after_switch") == faults.end()) return;
  auto last_called = std::make_shared<std::size_t>(targets.size());  // none yet
  for (std::size_t k = 0; k < targets.size(); ++k) {
    if (!targets[k].call) continue;
    targets[k].call = [inner = std::move(targets[k].call), k, last_called,
                       cold = faults[k] == "cold_after_switch"] {
      if (cold && *last_called != k) std::this_thread::sleep_for(switch_fault_ms);
      *last_called = k;
      return inner();
    };
  }
}

void act_out(const std::string& fault) {
  if (fault == "segv") std::raise(SIGSEGV);
  if (fault == "hang") {
    while (true) std::this_thread::sleep_for(std::chrono::seconds(1));
  }
}

/// [ms] A call at least this long is not doubled by a scheduler hiccup (a time slice is a few ms), so the
/// give-up below may decide on it alone. Shorter calls need all of far_behind_calls to be far behind.
constexpr double steady_call_ms = 10;
constexpr std::size_t far_behind_calls = 5;

/// A time trial's early exit. A candidate whose synchronized calls all take more than give_up_above times
/// (and more than retime_within times) the incumbent's time will not become the best, and timing it in full
/// (2 to 5 estimate calls, 2 warm-up calls and at least 5 timed ones) costs much of a search where such
/// configs are slow: bmm [8,512,512,512] on PoCL has configs of 0.3 to 1.7 s per call. So the candidate is
/// called once (a call >= steady_call_ms) or up to far_behind_calls times; if every one of those calls is
/// that far behind, `out` gets their median, says so in its message, and true is returned. Noise only
/// lengthens a call, so a config that could compete is not given up on; the first call within the bound
/// returns false, and the candidate is timed as usual. A sync that returned early makes the config a
/// runtime_error (also true).
bool gave_up_far_behind(const bench_target& target, const trial_request& request, trial_outcome& out) {
  if (!(request.give_up_above > 0) || !(request.incumbent_ms > 0)) return false;
  // Never below the re-time window: a candidate that close is to be timed again, interleaved, not given up.
  const double give_up_ratio = std::max(request.give_up_above, request.retime_within);
  const double give_up_ms = give_up_ratio * request.incumbent_ms;
  std::vector<double> samples;
  int violations = 0;
  try {
    while (samples.size() < far_behind_calls) {
      samples.push_back(time_one_call(target, violations));
      if (violations > 0) {
        out.status = eval_status::runtime_error;
        out.message = "a wait returned before the work finished: timing invalid";
        return true;
      }
      if (samples.back() <= give_up_ms) return false;
      if (samples.back() >= steady_call_ms) break;
    }
  } catch (const std::exception& e) {
    out.status = eval_status::runtime_error;
    out.message = e.what();
    return true;
  }
  out.time_ms = summarize(samples).median;
  out.samples = samples.size();
  out.message = fmt::format("timed from {} call(s) only: more than {}x the best so far ({:.4g} ms)",
                            samples.size(), give_up_ratio, request.incumbent_ms);
  return true;
}

/// The full timing's cost in synchronized rounds (one call of each config timed together): up to 2 estimate
/// calls when calls are long (compute_repeat), 2 warm-up and at least 5 timed.
constexpr double full_timing_rounds = 9;
/// The share of a trial's time limit it plans to use: the rest is slack for the worker's start, the answer's
/// way back and calls that run longer than the first.
constexpr double time_limit_share = 0.75;
constexpr std::size_t fitted_rounds_max = 5;

/// Times `targets` round by round when their calls are too long for the full timing to end by `deadline`:
/// one synchronized call of each first; if full_timing_rounds such rounds would not fit, more rounds follow
/// while another (with half a round to spare) fits, up to fitted_rounds_max, and true is returned with each
/// target's samples. A config of seconds per call (bmm [8,1024,1024,1024] on PoCL by default: ~8 s) would
/// otherwise run past the trial's timeout and be recorded as a `timeout`, though it works. False: the full
/// timing fits (the probe round was one more warm-up).
bool timed_to_fit(std::span<const bench_target> targets, std::chrono::steady_clock::time_point deadline,
                  std::vector<std::vector<double>>& samples, std::vector<int>& violations) {
  samples.assign(targets.size(), {});
  violations.assign(targets.size(), 0);
  const auto ms_left = [&] {
    return std::chrono::duration<double, std::milli>(deadline - std::chrono::steady_clock::now()).count();
  };
  double round_ms = 0;  // [ms] the longest round so far
  const auto one_round = [&] {
    double this_round = 0;
    for (std::size_t k = 0; k < targets.size(); ++k) {
      samples[k].push_back(time_one_call(targets[k], violations[k]));
      this_round += samples[k].back();
    }
    round_ms = std::max(round_ms, this_round);
  };
  one_round();
  if (ms_left() >= full_timing_rounds * round_ms) return false;
  while (samples.front().size() < fitted_rounds_max && ms_left() > 1.5 * round_ms) one_round();
  return true;
}

}  // namespace

trial_context::trial_context(const kernel_definition& kernel, std::size_t shape_index, backend_kind backend,
                             std::uint64_t seed)
    : m_kernel(kernel), m_shape_index(shape_index), m_impl(kernel.find(backend)) {
  if (shape_index >= kernel.shapes.size()) {
    throw usage_error(fmt::format("shape index {} out of range for kernel '{}' (valid: 0..{})", shape_index,
                                  kernel.name, kernel.shapes.size() - 1));
  }
  if (m_impl == nullptr) {
    throw usage_error(fmt::format("kernel '{}' has no {} implementation", kernel.name, to_string(backend)));
  }
  m_device = open_device(backend);
  m_inputs = kernel.make_inputs(kernel.shapes[shape_index], seed);
}

const std::vector<buffer_ptr>& trial_context::device_inputs() {
  if (m_device_inputs.size() != m_inputs.size()) m_device_inputs = upload_inputs(*m_device, m_inputs);
  return m_device_inputs;
}

const std::vector<buffer_ptr>& trial_context::fresh_device_inputs() {
  if (m_device_inputs.size() != m_inputs.size()) return device_inputs();
  // Nothing may still read them. An error the barrier rethrows belongs to an earlier config's call, which
  // already has its status (run_trial turns every exception of a run or a timing into one).
  try {
    m_device->barrier();
  } catch (const std::exception&) {
  }
  rewrite_inputs(m_device_inputs, m_inputs);
  return m_device_inputs;
}

const std::vector<buffer_ptr>& trial_context::device_outputs() {
  if (m_device_outputs.empty())
    m_device_outputs = allocate_outputs(*m_device, expected(), m_kernel.output_guard_bytes);
  return m_device_outputs;
}

std::shared_ptr<bound_kernel> trial_context::checked_binding(const config& values) const {
  for (const auto& [kept, binding] : m_checked) {
    if (kept == values) return binding;
  }
  return nullptr;
}

void trial_context::keep_checked(std::vector<std::pair<config, std::shared_ptr<bound_kernel>>> bindings) {
  m_checked = std::move(bindings);
}

const std::vector<host_tensor>& trial_context::expected() {
  if (!m_expected) m_expected = reference_outputs(m_kernel, kernel_shape(), m_inputs);
  return *m_expected;
}

std::vector<trial_outcome> run_trial(const kernel_definition& kernel, std::size_t shape_index,
                                     const trial_request& request) {
  trial_context context(kernel, shape_index, request.backend, request.seed);
  return run_trial(context, request);
}

std::vector<trial_outcome> run_trial(trial_context& context, const trial_request& request) {
  const auto started = std::chrono::steady_clock::now();
  const kernel_definition& kernel = context.kernel();
  if (request.configs.empty()) throw usage_error("a trial needs at least one --config");
  if (request.phase == trial_phase::time && request.configs.size() > 2) {
    throw usage_error("a time trial takes one --config, or two: the candidate and the incumbent");
  }
  const implementation* impl = &context.impl();
  const shape& s = context.kernel_shape();
  const device_ptr& device = context.device();
  const bool needs_reference = request.phase != trial_phase::compile;
  static const std::vector<host_tensor> no_reference;
  const std::vector<host_tensor>& expected = needs_reference ? context.expected() : no_reference;

  std::vector<trial_outcome> outcomes(request.configs.size());
  std::vector<std::shared_ptr<bound_kernel>> bound(request.configs.size());
  for (std::size_t i = 0; i < request.configs.size(); ++i) outcomes[i].values = request.configs[i];
  // Builds config i, then (unless compiling only) checks its output against the reference; a failure becomes
  // its status and leaves bound[i] empty.
  const auto bind_and_check = [&](std::size_t i) {
    trial_outcome& out = outcomes[i];
    const auto start = std::chrono::steady_clock::now();
    try {
      // A compile trial runs nothing, so no config before it can have written into the inputs.
      const std::vector<buffer_ptr>& inputs =
          needs_reference ? context.fresh_device_inputs() : context.device_inputs();
      if (needs_reference) {
        bound[i] = context.checked_binding(out.values);
        if (bound[i]) return;  // bound and checked by an earlier trial of this context
      }
      // A compile trial's binding is never run: it allocates its own outputs (and needs no reference).
      bound[i] = std::make_shared<bound_kernel>(
          kernel, *impl, device, s, inputs, out.values,
          needs_reference ? context.device_outputs() : std::vector<buffer_ptr>{});
    } catch (const std::exception& e) {
      out.status = eval_status::compile_error;
      out.message = e.what();
    }
    out.build_s = seconds_since(start);
    if (!bound[i] || !needs_reference) return;

    const std::string fault = injected_fault(kernel, out.values);
    try {
      act_out(fault);
      std::vector<host_tensor> got = bound[i]->run_and_read(expected);
      if (fault == "wrong" && !got.empty() && !got[0].values.empty()) got[0].values[0] += 1000.0f;
      const accuracy_report report = check_accuracy(got, expected, kernel.tolerance);
      if (!report.passed) {
        out.status = eval_status::wrong_result;
        out.message = report.message;
        bound[i].reset();
      }
    } catch (const std::exception& e) {
      out.status = eval_status::runtime_error;
      out.message = e.what();
      bound[i].reset();
    }
  };
  // A time trial's incumbent (config 1) is built and checked only if the candidate comes near it (below).
  const std::size_t bound_now = request.phase == trial_phase::time ? 1 : request.configs.size();
  for (std::size_t i = 0; i < bound_now; ++i) bind_and_check(i);
  if (request.phase == trial_phase::compile) return outcomes;

  // Config i's timed calls (slowed only by an injected slow or disturbed fault).
  const auto timed_target = [&](std::size_t i) {
    return slowed_by(injected_fault(kernel, outcomes[i].values), request.phase, bound[i]->target());
  };
  // Times the bound configs `which` interleaved at one repeat count (one config: alone) and stores each
  // median in `field`; a broken sync or an exception becomes the config's status.
  const auto time_together = [&](const std::vector<std::size_t>& which, double trial_outcome::*field) {
    std::vector<bench_target> targets;
    std::vector<std::string> faults;
    for (std::size_t i : which) {
      targets.push_back(timed_target(i));
      faults.push_back(injected_fault(kernel, outcomes[i].values));
    }
    add_switch_faults(faults, targets);
    // The median into `field`; a time_ms also gets its interval, which the final pick compares.
    const auto store_median = [field](trial_outcome& out, const summary& timed) {
      out.*field = timed.median;
      if (field == &trial_outcome::time_ms) {
        out.time_ci_low_ms = timed.median_ci_low;
        out.time_ci_high_ms = timed.median_ci_high;
      }
    };
    try {
      std::vector<std::vector<double>> fitted;
      std::vector<int> violations;
      if (request.time_limit_s > 0 &&
          timed_to_fit(targets,
                       started + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                     std::chrono::duration<double>(time_limit_share * request.time_limit_s)),
                       fitted, violations)) {
        for (std::size_t k = 0; k < which.size(); ++k) {
          trial_outcome& out = outcomes[which[k]];
          if (violations[k] > 0) {
            out.status = eval_status::runtime_error;
            out.message =
                fmt::format("{} waits returned before the work finished: timing invalid", violations[k]);
            continue;
          }
          const summary fit = summarize(fitted[k]);
          store_median(out, fit);
          out.samples += fitted[k].size();
          out.message = fmt::format(
              "timed from {} call(s) only: calls of {:.4g} ms leave no room for the full timing in the "
              "trial's limit of {:g} s",
              fitted[k].size(), fit.median, request.time_limit_s);
        }
        return;
      }
      int repeat = 1000;  // the slowest config sets the count, so that every config fits the budget
      for (const bench_target& t : targets)
        repeat = std::min(repeat, compute_repeat(t, request.target_ms, 5, 1000));
      // Several configs take turns of several calls, each after an untimed one, as kbench run times the
      // implementations it compares (bench.hpp): alternating call by call, a config that runs on both
      // cores of the cpu backend was timed after every call of a serial one, whose idle helper it had to
      // wake first (docs/code-figures.md). The slowest call is estimated from the repeat count.

      const int per_turn =
          targets.size() > 1 ? interleaved_calls_per_turn(request.target_ms / repeat, repeat) : 1;
      const std::vector<bench_result> results = interleaved_bench(targets, repeat, /*warmup=*/2, per_turn);
      for (std::size_t k = 0; k < which.size(); ++k) {
        trial_outcome& out = outcomes[which[k]];
        const bench_result& r = results[k];
        if (r.sync_violations > 0) {
          out.status = eval_status::runtime_error;
          out.message =
              fmt::format("{} waits returned before the work finished: timing invalid", r.sync_violations);
          continue;
        }
        store_median(out, r.stats);
        out.samples += r.samples_ms.size();
      }
    } catch (const std::exception& e) {
      for (std::size_t i : which) {
        outcomes[i].status = eval_status::runtime_error;
        outcomes[i].message = e.what();
      }
    }
  };

  if (request.phase == trial_phase::retime) {
    std::vector<std::size_t> passed;
    for (std::size_t i = 0; i < bound.size(); ++i) {
      if (bound[i]) passed.push_back(i);
    }
    if (!passed.empty()) time_together(passed, &trial_outcome::time_ms);
    return outcomes;
  }
  // time: the candidate alone (unless its first calls already show it far slower than the incumbent); then,
  // if it came within retime_within of the incumbent, both interleaved.
  if (!bound[0]) return outcomes;
  if (!gave_up_far_behind(timed_target(0), request, outcomes[0])) {
    time_together({0}, &trial_outcome::time_ms);
  }
  const bool near_the_best = outcomes[0].status == eval_status::ok && request.incumbent_ms > 0 &&
                             outcomes[0].time_ms <= request.retime_within * request.incumbent_ms;
  if (bound.size() >= 2 && near_the_best) {
    bind_and_check(1);
    if (bound[1]) time_together({0, 1}, &trial_outcome::retime_ms);
  }
  // Keep the candidate, which may be the next incumbent, and the incumbent, rebuilt or not.
  std::vector<std::pair<config, std::shared_ptr<bound_kernel>>> keep;
  for (std::size_t i = 0; i < bound.size(); ++i) {
    std::shared_ptr<bound_kernel> binding = bound[i] ? bound[i] : context.checked_binding(request.configs[i]);
    if (binding && outcomes[i].status == eval_status::ok) keep.emplace_back(request.configs[i], binding);
  }
  context.keep_checked(std::move(keep));
  return outcomes;
}

}  // namespace kbench::suite
