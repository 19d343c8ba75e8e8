#include <kbench/backends/registry.hpp>
#include <kbench/bench.hpp>
#include <kbench/error.hpp>
#include <kbench/suite/accuracy.hpp>
#include <kbench/suite/baseline_tuning.hpp>
#include <kbench/suite/bound_kernel.hpp>
#include <kbench/suite/detail/worker_process.hpp>
#include <kbench/suite/reference.hpp>
#include <kbench/suite/worker_request.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <thread>
#include <utility>

namespace kbench::suite {

namespace {

/// A call slower than this [ms] is timed 3 times per setting, one call per turn (as run_shape does).
constexpr double slow_call_ms = 1000;
/// libgomp's spin count when GOMP_SPINCOUNT and OMP_WAIT_POLICY are unset.
constexpr std::int64_t libgomp_default_spin = 300000;

/// The GOMP_SPINCOUNT the user set, when it is a number.
std::optional<std::int64_t> user_spin_count() {
  const char* text = std::getenv("GOMP_SPINCOUNT");
  if (text == nullptr || *text == '\0') return std::nullopt;
  char* end = nullptr;
  const long long value = std::strtoll(text, &end, 10);
  if (*end != '\0' || value < 0) return std::nullopt;
  return value;
}

tune::space settings_space(const std::vector<std::int64_t>& spins) {
  tune::space space;
  space
      .add(tune::parameter::integers(baseline_threads_key,
                                     baseline_thread_counts(std::thread::hardware_concurrency())))
      .add(tune::parameter::integers(baseline_spin_key, spins));
  return space;
}

baseline_setting from_cache(const tune::cache_entry& entry) {
  baseline_setting setting;
  setting.source = "cache hit";
  if (entry.best) {
    setting.threads = entry.best->at(baseline_threads_key);
    setting.spin = entry.best->at(baseline_spin_key);
    setting.median_ms = entry.best_time_ms;
  }
  for (const auto& e : entry.log) {
    baseline_candidate c;
    c.threads = e.values.at(baseline_threads_key);
    c.spin = e.values.at(baseline_spin_key);
    c.ok = e.status == tune::eval_status::ok;
    c.median_ms = e.time_ms;
    c.message = e.message;
    setting.candidates.push_back(std::move(c));
  }
  return setting;
}

/// The candidates of one spin count, from a worker started with it.
std::vector<baseline_candidate> run_spin_worker(const kernel_definition& kernel, std::size_t shape_index,
                                                std::int64_t spin, const baseline_options& options,
                                                std::vector<std::string>& warnings) {
  worker_request request = make_worker_request(worker_task::baseline_settings, kernel, shape_index);
  request.shape.seed = options.seed;
  request.shape.target_ms = options.target_ms;
  const std::vector<std::string> argv{self_executable(), "worker", to_message(request)};
  const worker_outcome outcome =
      run_worker(argv, options.timeout_s, {fmt::format("GOMP_SPINCOUNT={}", spin)});
  const nlohmann::json doc = answer_of(outcome);
  if (outcome.timed_out || outcome.signal != 0 || !doc.is_array()) {
    warnings.push_back(
        fmt::format("the torch baseline's settings with GOMP_SPINCOUNT={} were not timed ({}): {}", spin,
                    outcome.timed_out     ? fmt::format("no answer within {:g} s", options.timeout_s)
                    : outcome.signal != 0 ? fmt::format("signal {}", outcome.signal)
                                          : fmt::format("exit status {}", outcome.exit_code),
                    outcome.err.substr(outcome.err.size() > 400 ? outcome.err.size() - 400 : 0)));
    return {};
  }
  auto candidates = doc.get<std::vector<baseline_candidate>>();
  for (auto& c : candidates) c.spin = spin;
  return candidates;
}

}  // namespace

std::vector<std::int64_t> baseline_spin_counts() {
  if (const auto user = user_spin_count()) return {*user};
  return {std::strtoll(worker_gomp_spin_count, nullptr, 10), libgomp_default_spin};
}

std::vector<std::int64_t> baseline_thread_counts(unsigned cores) {
  const std::int64_t n = std::max(1U, cores);
  std::vector<std::int64_t> counts;
  for (std::int64_t t = 1; t < n; t *= 2) counts.push_back(t);
  counts.push_back(n);
  return counts;
}

std::vector<baseline_candidate> time_baseline_thread_counts(const kernel_definition& kernel,
                                                            std::size_t shape_index, std::uint64_t seed,
                                                            double target_ms) {
  const implementation* impl = kernel.find(backend_kind::torch);
  if (impl == nullptr) KBENCH_THROW("kernel '{}' has no torch baseline", kernel.name);
  const shape& s = kernel.shapes.at(shape_index);
  const auto inputs = kernel.make_inputs(s, seed);
  const auto expected = reference_outputs(kernel, s, inputs);
  const device_ptr device = open_device(backend_kind::torch);
  const auto spin = user_spin_count().value_or(0);

  std::vector<baseline_candidate> candidates;
  std::vector<std::unique_ptr<bound_kernel>> bound;
  std::vector<bench_target> targets;
  std::vector<std::size_t> timed;  // indices into candidates
  double slowest_ms = 0;
  for (const std::int64_t threads : baseline_thread_counts(std::thread::hardware_concurrency())) {
    baseline_candidate c;
    c.threads = threads;
    c.spin = spin;
    try {
      auto b = std::make_unique<bound_kernel>(kernel, *impl, device, s, inputs,
                                              config{{baseline_threads_key, threads}});
      const accuracy_report report = check_accuracy(b->run_and_read(expected), expected, kernel.tolerance);
      if (!report.passed) throw error(report.message);
      int violations = 0;
      slowest_ms = std::max(slowest_ms, time_one_call(b->target(), violations));
      targets.push_back(b->target());
      timed.push_back(candidates.size());
      bound.push_back(std::move(b));
    } catch (const std::exception& e) {
      c.message = e.what();
    }
    candidates.push_back(std::move(c));
  }
  if (targets.empty()) return candidates;
  const bool slow = slowest_ms > slow_call_ms;
  int repeat = 3;
  if (!slow) {
    repeat = 1000;
    for (const auto& t : targets) repeat = std::min(repeat, compute_repeat(t, target_ms));
  }
  const auto results = interleaved_bench(targets, repeat, slow ? 0 : 2,
                                         slow ? 1 : interleaved_calls_per_turn(slowest_ms, repeat));
  for (std::size_t i = 0; i < results.size(); ++i) {
    baseline_candidate& c = candidates[timed[i]];
    c.ok = true;
    c.median_ms = results[i].stats.median;
    c.spread = relative_spread(results[i].stats);
  }
  return candidates;
}

baseline_setting choose_baseline_setting(const kernel_definition& kernel, std::size_t shape_index,
                                         const device_info& torch_device, const baseline_options& options) {
  if (kernel.find(backend_kind::torch) == nullptr)
    KBENCH_THROW("kernel '{}' has no torch baseline", kernel.name);
  const auto started = std::chrono::steady_clock::now();
  const std::vector<std::int64_t> spins = baseline_spin_counts();
  const tune::space space = settings_space(spins);
  const tune::cache_key key = make_cache_key(kernel, shape_index, torch_device, space);
  const tune::tuning_cache cache(options.cache_directory);
  std::vector<std::string> warnings;
  if (options.cache == cache_mode::read_write) {
    tune::cache_lookup found = cache.read(key);
    warnings = std::move(found.warnings);
    if (found.entry && found.entry->complete && found.entry->best) {
      baseline_setting setting = from_cache(*found.entry);
      setting.warnings = std::move(warnings);
      return setting;
    }
  }

  baseline_setting setting;
  setting.source = "tuned";
  // Rounds of one worker per spin count, alternating; a setting scores the slowest of its rounds' medians:
  // a setting that is fast in one process and slow in the next (libgomp's threads falling asleep between
  // calls or not) is as good as its slow process.
  std::map<std::pair<std::int64_t, std::int64_t>, baseline_candidate> scored;  // (spin, threads)
  for (int round = 0; round < std::max(1, options.rounds); ++round) {
    for (const std::int64_t spin : spins) {
      for (auto& c : run_spin_worker(kernel, shape_index, spin, options, warnings)) {
        auto [it, first] = scored.try_emplace({c.spin, c.threads}, c);
        if (first) continue;
        baseline_candidate& kept = it->second;
        if (!c.ok && kept.ok) {
          kept = std::move(c);
        } else if (c.ok && kept.ok && c.median_ms > kept.median_ms) {
          kept.median_ms = c.median_ms;
          kept.spread = std::max(kept.spread, c.spread);
        }
      }
    }
  }
  for (auto& [setting_key, c] : scored) setting.candidates.push_back(std::move(c));
  const baseline_candidate* best = nullptr;
  for (const auto& c : setting.candidates) {
    if (c.ok && (best == nullptr || c.median_ms < best->median_ms)) best = &c;
  }
  if (best != nullptr) {
    setting.threads = best->threads;
    setting.spin = best->spin;
    setting.median_ms = best->median_ms;
  } else {
    warnings.push_back("no setting of the torch baseline could be timed: it runs with libtorch's defaults");
  }
  setting.tuning_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (best != nullptr && options.cache != cache_mode::off) {
    tune::cache_entry entry;
    entry.key = key;
    entry.strategy = "baseline settings: every one";
    entry.seed = options.seed;
    entry.complete = true;
    entry.best = config{{baseline_threads_key, setting.threads}, {baseline_spin_key, setting.spin}};
    entry.best_time_ms = setting.median_ms;
    entry.tuning_s = setting.tuning_s;
    for (const auto& c : setting.candidates) {
      tune::logged_evaluation e;
      e.values = {{baseline_threads_key, c.threads}, {baseline_spin_key, c.spin}};
      e.status = c.ok ? tune::eval_status::ok : tune::eval_status::runtime_error;
      e.time_ms = c.ok ? c.median_ms : 0;
      e.message = c.message;
      entry.log.push_back(std::move(e));
    }
    try {
      cache.write(entry);
    } catch (const std::exception& e) {  // the run goes on with the setting; the next one tunes again
      warnings.push_back(fmt::format("the torch baseline's setting was not cached: {}", e.what()));
    }
  }
  setting.warnings = std::move(warnings);
  return setting;
}

}  // namespace kbench::suite
