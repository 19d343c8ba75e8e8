#include <kbench/build_config.hpp>
#include <kbench/error.hpp>
#include <kbench/suite/detail/config_trial.hpp>
#include <kbench/suite/detail/final_pick.hpp>
#include <kbench/suite/detail/trial_server.hpp>
#include <kbench/suite/detail/worker_process.hpp>
#include <kbench/suite/tune_shape.hpp>
#include <kbench/suite/worker_request.hpp>
#include <kbench/tune/strategy.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <thread>

namespace kbench::suite {

namespace {

using tune::eval_status;
using tune::logged_evaluation;

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// The command line of a served worker for this search (trial_server.hpp): compile, time and retime trials.
std::vector<std::string> server_arguments(const kernel_definition& kernel, std::size_t shape_index,
                                          const tuning_options& options) {
  worker_request request = make_worker_request(worker_task::trials, kernel, shape_index);
  request.shape.backend = options.backend;
  request.shape.seed = options.seed;
  return {self_executable(), "worker", to_message(request)};
}

trial_request make_request(const tuning_options& options, trial_phase phase, std::vector<config> configs,
                           double incumbent_ms) {
  trial_request request;
  request.backend = options.backend;
  request.seed = options.seed;
  request.phase = phase;
  request.configs = std::move(configs);
  request.target_ms = options.target_ms;
  request.incumbent_ms = incumbent_ms;
  request.retime_within = options.retime_within;
  request.give_up_above = options.give_up_above;
  return request;
}

logged_evaluation to_logged(const trial_outcome& t) {
  logged_evaluation l;
  l.values = t.values;
  l.status = t.status;
  l.time_ms = t.status == eval_status::ok ? t.time_ms : 0;
  l.retime_ms = t.status == eval_status::ok ? t.retime_ms : 0;
  l.message = t.message;
  return l;
}

/// [ms] the time the search compares an ok config by: its latest interleaved time against the best so far
/// when it has one, else its time alone.
double compared_ms(const logged_evaluation& l) {
  return l.retime_ms > 0 ? l.retime_ms : l.time_ms;
}

/// Writes checkpoints and the final entry; an unwritable cache becomes one warning, not a failed run.
class cache_writer {
 public:
  cache_writer(const tune::tuning_cache& cache, bool enabled, std::vector<std::string>& warnings)
      : m_cache(cache), m_enabled(enabled), m_warnings(warnings) {}
  void write(const tune::cache_entry& entry) {
    if (!m_enabled || m_broken) return;
    try {
      m_cache.write(entry);
    } catch (const std::exception& e) {
      m_broken = true;
      m_warnings.push_back(fmt::format("tuning cache not written: {}", e.what()));
    }
  }

 private:
  const tune::tuning_cache& m_cache;
  bool m_enabled;
  std::vector<std::string>& m_warnings;
  bool m_broken = false;
};

/// What a search stopped by abort_workers() returns: the default config (the run drops the shape anyway)
/// and a warning; its checkpoint, written after each real outcome, stays incomplete for the next search.
tuning_outcome interrupted_search(tuning_outcome outcome, const tune::cache_entry& entry,
                                  config default_config) {
  outcome.source = config_source::no_valid_config;
  outcome.chosen = std::move(default_config);
  outcome.log = entry.log;
  outcome.warnings.push_back(fmt::format(
      "tuning stopped: kbench was interrupted; the tuning cache keeps the {} configs timed before",
      entry.log.size()));
  return outcome;
}

}  // namespace

std::string_view to_string(config_source source) {
  switch (source) {
    case config_source::untunable:
      return "untunable";
    case config_source::default_config:
      return "default";
    case config_source::cache_hit:
      return "cache_hit";
    case config_source::tuned:
      return "tuned";
    case config_source::cache_miss:
      return "cache_miss";
    case config_source::no_valid_config:
      return "no_valid_config";
  }
  return "?";
}

tune::cache_key make_cache_key(const kernel_definition& kernel, std::size_t shape_index,
                               const device_info& device, const tune::space& space) {
  tune::cache_key key;
  key.kernel = kernel.name;
  key.shape = kbench::to_string(kernel.shapes.at(shape_index));
  key.dtype = "float32";
  key.backend = std::string(kbench::to_string(device.backend));
  key.device = device.name;
  key.driver = device.driver_version;
  key.source_hash = kernel.source_hash;
  key.space_hash = space.definition_hash_text();
  key.kbench_version = KBENCH_VERSION;
  return key;
}

tuning_outcome choose_config(const kernel_definition& kernel, std::size_t shape_index,
                             const device_info& device, const tuning_options& options) {
  const implementation* impl = kernel.find(options.backend);
  if (impl == nullptr || !impl->tuning_space) {
    tuning_outcome outcome;
    if (impl != nullptr) outcome.chosen = impl->default_config;
    return outcome;
  }
  tuning_target target{impl->tuning_space(kernel.shapes.at(shape_index)),
                       device,
                       {},
                       impl->default_config,
                       server_arguments(kernel, shape_index, options),
                       options.backend != backend_kind::cpu && options.backend != backend_kind::torch};
  target.key = make_cache_key(kernel, shape_index, device, target.space);
  return choose_config(target, options);
}

tuning_outcome choose_config(const tuning_target& target, const tuning_options& options) {
  const auto started = std::chrono::steady_clock::now();
  const auto tell = [&](const std::string& line) {
    if (options.progress) options.progress(line);
  };
  tuning_outcome outcome;
  const tune::space& space = target.space;
  const tune::enumerated_space valid = space.enumerate(target.device);
  outcome.space_size = valid.size();
  outcome.key = target.key;
  const tune::tuning_cache cache(options.cache_directory);

  std::optional<tune::cache_entry> checkpoint;
  if (options.cache == cache_mode::read_write) {
    tune::cache_lookup found = cache.read(*outcome.key);
    outcome.warnings = std::move(found.warnings);
    if (found.entry && found.entry->complete) {
      outcome.source = found.entry->best ? config_source::cache_hit : config_source::no_valid_config;
      outcome.chosen = found.entry->best ? *found.entry->best : target.default_config;
      outcome.best_time_ms = found.entry->best_time_ms;
      outcome.log = found.entry->log;
      return outcome;
    }
    checkpoint = std::move(found.entry);
  }
  if (options.assert_cache_hit) {
    outcome.source = config_source::cache_miss;
    outcome.message = cache.describe_miss(*outcome.key);
    return outcome;
  }
  if (options.strategy.empty()) {
    outcome.source = config_source::default_config;
    outcome.chosen = target.default_config;
    return outcome;
  }

  // The search. Results of a checkpoint are replayed when the strategy proposes their configs again (the
  // same seed proposes the same configs given the same results), so a resumed search costs nothing twice.
  std::map<std::string, logged_evaluation> resumable;
  if (checkpoint) {
    for (const auto& l : checkpoint->log) resumable.emplace(to_json_text(l.values), l);
  }
  auto search = tune::make_strategy(options.strategy, valid, {options.seed, options.budget.max_evals});
  tune::cache_entry entry;
  entry.key = *outcome.key;
  entry.strategy = options.strategy;
  entry.seed = options.seed;
  entry.tuning_s = checkpoint ? checkpoint->tuning_s : 0;
  cache_writer writer(cache, options.cache != cache_mode::off, outcome.warnings);

  const bool compiles = target.compiles;
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t batch_size =
      compiles ? (options.parallel_compiles ? options.parallel_compiles : cores) : 1;
  const std::size_t max_evals = options.budget.max_evals;
  // The best so far (an index into entry.log) and its compared_ms. A config timed within retime_within of
  // it is timed again interleaved with it in the same worker, and replaces it only if faster there.
  std::optional<std::size_t> incumbent;
  double incumbent_ms = 0;
  // Served workers (trial_server.hpp), each replaced by a fresh one after any failure: one per core for the
  // compile trials, which run in parallel, and one for the time and retime trials, which run alone.
  trial_server server(target.worker_argv);
  std::vector<std::unique_ptr<trial_server>> compilers;
  if (compiles) {
    for (std::size_t i = 0; i < batch_size; ++i) {
      compilers.push_back(std::make_unique<trial_server>(target.worker_argv));
    }
  }
  for (;;) {
    if (max_evals != 0 && entry.log.size() >= max_evals) break;
    if (options.budget.time_budget_s > 0 && seconds_since(started) >= options.budget.time_budget_s) break;
    std::vector<tune::config_id> batch;
    while (batch.size() < batch_size && (max_evals == 0 || entry.log.size() + batch.size() < max_evals)) {
      const auto id = search->ask();
      if (!id) break;
      batch.push_back(*id);
    }
    if (batch.empty()) break;

    std::vector<config> configs;
    for (tune::config_id id : batch) configs.push_back(valid.to_config(id));
    std::vector<std::optional<trial_outcome>> compiled(batch.size());
    if (compiles) {
      // One config per compile worker, all at once (the batch is at most one per core); each has its own
      // timeout.
      std::vector<std::thread> threads;
      for (std::size_t i = 0; i < batch.size(); ++i) {
        if (resumable.count(to_json_text(configs[i])) != 0) continue;
        threads.emplace_back([&, i] {
          compiled[i] = compilers[i]
                            ->run(make_request(options, trial_phase::compile, {configs[i]}, 0),
                                  options.compile_timeout_s)
                            .front();
        });
      }
      for (auto& t : threads) t.join();
    }
    for (std::size_t i = 0; i < batch.size(); ++i) {
      logged_evaluation result;
      if (const auto found = resumable.find(to_json_text(configs[i])); found != resumable.end()) {
        result = found->second;
        ++outcome.resumed;
      } else {
        if (compiled[i] && compiled[i]->status != eval_status::ok) {
          result = to_logged(*compiled[i]);
        } else {
          std::vector<config> timed{configs[i]};
          if (incumbent) timed.push_back(entry.log[*incumbent].values);
          const double timeout_s = options.trial_timeout_s * static_cast<double>(timed.size());
          trial_request request =
              make_request(options, trial_phase::time, std::move(timed), incumbent ? incumbent_ms : 0);
          request.time_limit_s =
              trial_time_limit_s(timeout_s, options.budget.time_budget_s, seconds_since(started));
          const auto outcomes = server.run(request, timeout_s);
          result = to_logged(outcomes.front());
          if (result.retime_ms > 0) {
            const trial_outcome& best = outcomes.back();
            if (best.status == eval_status::ok && best.retime_ms > 0) {
              entry.log[*incumbent].retime_ms = incumbent_ms = best.retime_ms;
            } else {
              tell(fmt::format("  the best so far failed its re-check ({}: {}); it stays the best",
                               tune::to_string(best.status), best.message));
            }
          }
        }
        // A second Ctrl-C or SIGTERM cut this trial short: its "failure" is not the config's, and the
        // checkpoint keeps only real outcomes, for the next search to resume from.
        if (workers_aborted()) return interrupted_search(std::move(outcome), entry, target.default_config);
        ++outcome.evaluations;
        if (result.status != eval_status::ok) ++outcome.failed;
      }
      tune::evaluation e;
      e.id = batch[i];
      e.status = result.status;
      if (result.status == eval_status::ok) e.time_ms = result.time_ms;
      search->tell(e);
      std::string line =
          result.status == eval_status::ok
              ? fmt::format("  config {:>3} {} {:.4f} ms", entry.log.size() + 1, to_json_text(result.values),
                            result.time_ms)
              : fmt::format("  config {:>3} {} {}: {}", entry.log.size() + 1, to_json_text(result.values),
                            tune::to_string(result.status), result.message);
      if (result.status == eval_status::ok && !result.message.empty()) line += " (" + result.message + ")";
      if (result.retime_ms > 0) {
        line += fmt::format(" (interleaved with the best so far: {:.4f} vs {:.4f} ms)", result.retime_ms,
                            incumbent_ms);
      }
      tell(line);
      if (result.status == eval_status::ok && (!incumbent || compared_ms(result) < incumbent_ms)) {
        incumbent = entry.log.size();
        incumbent_ms = compared_ms(result);
      }
      entry.log.push_back(std::move(result));
      entry.tuning_s = (checkpoint ? checkpoint->tuning_s : 0) + seconds_since(started);
      writer.write(entry);
    }
  }

  // The final pick: the best so far and the configs nearest to it, re-timed interleaved in one worker.
  std::vector<const logged_evaluation*> ok;
  for (std::size_t i = 0; i < entry.log.size(); ++i) {
    if (entry.log[i].status == eval_status::ok && i != incumbent) ok.push_back(&entry.log[i]);
  }
  std::sort(ok.begin(), ok.end(),
            [](const auto* a, const auto* b) { return compared_ms(*a) < compared_ms(*b); });
  if (!incumbent) {
    outcome.source = config_source::no_valid_config;
    outcome.chosen = target.default_config;
  } else {
    outcome.source = config_source::tuned;
    outcome.chosen = entry.log[*incumbent].values;
    outcome.best_time_ms = incumbent_ms;
    std::vector<config> candidates{outcome.chosen};
    for (const auto* l : ok) {
      if (candidates.size() >= options.retime_top || compared_ms(*l) > options.retime_within * incumbent_ms)
        break;
      candidates.push_back(l->values);
    }
    // The default config is re-timed too, whatever its time in the search, when it ran and passed its
    // check: a config timed while the machine was disturbed (on a VM, while the hypervisor ran something
    // else; docs/code-figures.md) falls out of the window above, and the default

    // is the one that must not be lost so, since a tuned config is to beat it in the same interleaved turns.
    const config default_config = space.default_config();
    const bool default_ran =
        std::any_of(ok.begin(), ok.end(), [&](const auto* l) { return l->values == default_config; });
    const bool default_added =
        default_ran && std::find(candidates.begin(), candidates.end(), default_config) == candidates.end();
    if (default_added) candidates.push_back(default_config);
    if (candidates.size() >= 2) {
      tell(fmt::format("  re-timing the {} configs within {}x of the best{}, interleaved", candidates.size(),
                       options.retime_within, default_added ? " and the default config" : ""));
      const double timeout_s = options.trial_timeout_s * static_cast<double>(candidates.size());
      trial_request request = make_request(options, trial_phase::retime, candidates, 0);
      request.time_limit_s =
          trial_time_limit_s(timeout_s, options.budget.time_budget_s, seconds_since(started));
      const auto retimed = server.run(request, timeout_s);
      if (workers_aborted()) return interrupted_search(std::move(outcome), entry, target.default_config);
      const std::optional<final_pick> pick = pick_final(retimed, space);
      // Each candidate's time there, so that the pick can be followed (and the default's against it).
      for (std::size_t i = 0; i < retimed.size(); ++i) {
        const trial_outcome& r = retimed[i];
        const std::string time = r.status == eval_status::ok
                                     ? fmt::format("{:.4f} ms (99% interval of the median {:.4f}-{:.4f})",
                                                   r.time_ms, r.time_ci_low_ms, r.time_ci_high_ms)
                                     : fmt::format("{}: {}", tune::to_string(r.status), r.message);
        const bool tied = pick && pick->by_preference() &&
                          std::find(pick->tied.begin(), pick->tied.end(), i) != pick->tied.end();
        tell(fmt::format("    {} {}{}{}", to_json_text(r.values), time,
                         r.values == default_config ? " (the default config)" : "",
                         tied ? " (ties with the fastest)" : ""));
      }
      if (pick) {
        const trial_outcome& chosen = retimed[pick->chosen];
        if (pick->by_preference()) {
          std::vector<std::string> preferred;
          for (const auto& p : space.parameters()) {
            if (p.prefers_higher_on_tie()) preferred.push_back(p.name());
          }
          tell(fmt::format("  picked {}: it ties with the fastest, and a higher {} is preferred on a tie",
                           to_json_text(chosen.values), fmt::join(preferred, ", ")));
        }
        outcome.chosen = chosen.values;
        outcome.best_time_ms = chosen.time_ms;
      } else {
        outcome.warnings.push_back(fmt::format("the final re-timing failed ({}); the search's best is kept",
                                               retimed.empty() ? "no result" : retimed.front().message));
      }
    }
  }
  outcome.tuning_s = seconds_since(started);
  entry.complete = true;
  if (incumbent) entry.best = outcome.chosen;
  entry.best_time_ms = outcome.best_time_ms;
  entry.tuning_s = (checkpoint ? checkpoint->tuning_s : 0) + outcome.tuning_s;
  writer.write(entry);
  outcome.log = entry.log;
  return outcome;
}

double trial_time_limit_s(double timeout_s, double budget_s, double elapsed_s) {
  constexpr double min_limit_s = 1;  // [s] a limit still worth one round of calls
  if (!(budget_s > 0)) return timeout_s;
  return std::min(timeout_s, std::max(min_limit_s, budget_s - elapsed_s));
}

}  // namespace kbench::suite
