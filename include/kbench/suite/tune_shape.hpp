#pragma once
// Choosing the config of one kernel x shape x backend: from the tuning cache, or by searching the kernel's
// tuning space with config trials in served worker processes (config_trial.hpp, trial_server.hpp), or the
// default config.
//
// The search asks the strategy for a batch of configs (one per core on compiled backends, one on the cpu
// backend, which has nothing to compile), compiles the batch in parallel workers with a compile timeout,
// then times each config alone in the timing worker with a per-config timeout (correctness checked first). A
// config that comes within `retime_within` (1.5x) of the best so far is timed again in the same worker,
// interleaved with that best (turns of calls, each after an untimed one, as kbench run times kbench against
// torch: bench.hpp): it becomes the best only if it is faster there, so a config timed alone during a quiet
// moment of the machine does not win by luck. The strategy is told every config's time alone (one protocol
// for all). A worker that dies on a signal marks its config
// runtime_error, one that outlives its timeout is killed and marks it timeout; the search goes on. Every
// evaluation is checkpointed to the cache entry, so an interrupted tuning resumes where it stopped. At the
// end the best and the configs nearest to it within 1.5x (at most `retime_top` in all), plus the default
// config when it ran and passed its check, are re-timed interleaved in one worker and the fastest there wins.

#include <kbench/config.hpp>
#include <kbench/device.hpp>
#include <kbench/suite/kernel.hpp>
#include <kbench/timing_budget.hpp>
#include <kbench/tune/cache.hpp>
#include <kbench/tune/search.hpp>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kbench::suite {

/// --no-cache: neither read nor write; --force-autotune: write only; default: read and write.
enum class cache_mode { read_write, write_only, off };

struct tuning_options {
  backend_kind backend = backend_kind::cpu;
  std::uint64_t seed = 0;      // inputs and the search
  std::string strategy;        // empty: never search (effort none): a miss uses the default config
  tune::search_budget budget;  // per kernel x shape
  cache_mode cache = cache_mode::read_write;
  std::filesystem::path cache_directory = tune::tuning_cache::default_directory();
  bool assert_cache_hit = false;   // a miss fails the shape instead of tuning or using the default
  double compile_timeout_s = 120;  // [s] per config
  double trial_timeout_s =
      default_timing_budget.config_timeout_s;  // [s] per config: build, check and timing in its worker
  unsigned parallel_compiles = 0;              // workers compiling at once; 0: one per core
  double target_ms = default_timing_budget.tune_target_ms;    // [ms] the time each config's timed calls fill
  std::size_t retime_top = default_timing_budget.retime_top;  // configs re-timed interleaved at the end
  double retime_within =
      default_timing_budget.retime_within;  // [ratio to the best so far] configs re-timed against it
  double give_up_above =
      default_timing_budget
          .give_up_above;  // [ratio to the best so far] configs timed from their first calls only
  std::function<void(const std::string&)> progress;  // told what happens, one line at a time
};

enum class config_source {
  untunable,       // the implementation declares no tuning space: its default config
  default_config,  // a cache miss with effort none: the default config, untuned
  cache_hit,       // the cached best config
  tuned,           // searched now (possibly resuming a checkpoint)
  cache_miss,      // a miss with --assert-cache-hit: the shape fails
  no_valid_config  // tuned, but every config failed: the default config is measured (and likely fails too)
};
[[nodiscard]] std::string_view to_string(config_source source);

struct tuning_outcome {
  config_source source = config_source::untunable;
  config chosen;
  std::optional<tune::cache_key> key;        // nullopt when untunable
  std::size_t evaluations = 0;               // configs evaluated now (resumed ones not counted)
  std::size_t resumed = 0;                   // configs taken from a checkpoint instead of evaluated
  std::size_t failed = 0;                    // evaluated configs with a status other than ok
  std::size_t space_size = 0;                // valid configs on this device
  double best_time_ms = 0;                   // [ms] of `chosen` when tuned or cached
  double tuning_s = 0;                       // [s] spent now
  std::string message;                       // the miss description for cache_miss
  std::vector<std::string> warnings;         // corrupt cache files, unwritable cache, ...
  std::vector<tune::logged_evaluation> log;  // tuned or cached: every config of the search, in order
};

/// [s] The time limit a time or final retime trial fits its timing to (trial_request::time_limit_s): its
/// timeout, or, when less of the search's time budget `budget_s` is left after `elapsed_s`, what is left (at
/// least 1 s), so that a slow config started near the end of the budget, or the final re-timing, times what
/// fits instead of overrunning the budget by a full timing. `budget_s` 0: no budget.
[[nodiscard]] double trial_time_limit_s(double timeout_s, double budget_s, double elapsed_s);

/// The cache key of `kernel` at `shape_index` on `device` (whose implementation must have a tuning space).
[[nodiscard]] tune::cache_key make_cache_key(const kernel_definition& kernel, std::size_t shape_index,
                                             const device_info& device, const tune::space& space);

/// Picks the config of a built-in or spec-file kernel x shape (see the top of this file): its target below,
/// served by `kbench worker` with task "trials". Throws usage_error for an unknown strategy or an empty
/// space; every failure of a config or a worker is a status, never an exception.
[[nodiscard]] tuning_outcome choose_config(const kernel_definition& kernel, std::size_t shape_index,
                                           const device_info& device, const tuning_options& options);

/// What a search needs of a kernel x shape, whatever kernel it is: its space and cache key, its default
/// config, and the command line of a served worker that answers its trials (trial_server.hpp) for it: a C++
/// kernel's `kbench worker` with task "trials", a Python kernel's `python -m kbench.worker --trials`.
/// Starts a trial worker's answer line on its standard output (kernels and drivers may print other lines);
/// the rest of the line is the JSON list of its trial_outcomes (detail/trial_messages.hpp).
inline constexpr std::string_view trial_answer_prefix = "kbench-trial-answer ";

struct tuning_target {
  tune::space space;
  device_info device;  // the space's valid configs are those of this device
  tune::cache_key key;
  config default_config;  // measured on a miss with effort none, or when no config passes
  std::vector<std::string> worker_argv;
  bool compiles = false;  // configs are compiled first, in parallel workers (one per core)
};

/// Picks the config of any target (see the top of this file): the same cache, search, re-timing and final
/// pick for every front-end.
[[nodiscard]] tuning_outcome choose_config(const tuning_target& target, const tuning_options& options);

}  // namespace kbench::suite
