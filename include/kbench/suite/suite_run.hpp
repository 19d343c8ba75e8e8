#pragma once
// `kbench run` as one call of the suite's engine: everything the run decides (which backend and
// implementations, the bandwidth calibration, the torch baseline's setting, each shape's config from the
// tuning cache or a search, the shapes in their workers, the peak raised by a faster triad beside a shape),
// what it says at the end (the table, the verdict counts, the notes) and the records it writes. A front-end
// parses its flags into a suite_run_request, prints what the engine hands back, and writes the records
// where it was told to.

#include <kbench/device.hpp>
#include <kbench/suite/calibrate.hpp>
#include <kbench/suite/suite.hpp>
#include <kbench/suite/tune_shape.hpp>
#include <kbench/suite/tuning_summary.hpp>
#include <kbench/timing_budget.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace kbench::suite {

/// What a front-end asks of a run, parsed but not yet judged.
struct suite_run_request {
  std::string backend = "auto";    // a backend's name, or auto
  std::vector<std::string> impls;  // kbench, torch; empty: both (kbench alone without a torch baseline)
  std::uint64_t seed = 0;
  std::optional<double> atol, rtol;
  std::string effort = "none";  // none, quick, full: tuning on a cache miss
  double target_ms = default_timing_budget.target_ms;
  double min_effect = default_timing_budget.min_effect;
  double timeout_per_kernel_s = default_timing_budget.timeout_per_kernel_s;
  double triad_min_mib = 0;    // [MiB per call] 0: the rule of triad_probe_min_bytes
  double require_quiet_s = 0;  // [s] shape_options::require_quiet_s
};

/// A request judged against the plan: bad input throws usage_error (exit 2), before anything runs.
struct suite_run_plan {
  suite_run_request request;
  std::vector<suite_item> items;
  suite_options options;      // backend resolved, implementations, tolerances, timeouts
  bool has_baseline = false;  // a torch baseline is built in (libtorch)
};

/// Checks `request` against `items` (the shapes to run) and `all_items` (the whole plan before sharding,
/// which tells whether a baseline exists).
[[nodiscard]] suite_run_plan plan_suite_run(const suite_run_request& request, std::vector<suite_item> items,
                                            const std::vector<suite_item>& all_items);

/// The backend a request's name picks (auto: cuda, then opencl, then cpu, among those available); throws
/// usage_error for an unknown name, listing the valid ones.
[[nodiscard]] backend_kind resolve_backend(const std::string& name);

/// What a run did, for the summary and the records.
struct suite_run_result {
  std::vector<shape_result> results;
  std::size_t planned = 0;
  std::string device_name;          // the kbench backend's device ("-" when none)
  std::optional<calibration> peak;  // the bandwidth calibration the shares are of
  std::size_t cache_hits = 0, tuned = 0, cache_misses = 0;
  double tuning_s = 0;  // [s] choosing configs, all shapes
  tuning_summary tuning_by_kernel;
  std::size_t baselines_tuned = 0, baselines_cached = 0;
  double baseline_tuning_s = 0;  // [s]
  double elapsed_s = 0;          // [s] the whole run
  std::int64_t timestamp = 0;    // [s since the epoch] when the shapes started
  [[nodiscard]] bool all_passed() const;
};

/// Runs the plan: every shape in a worker (suite.hpp), each with its config and baseline setting chosen
/// first, under stop_signal_scope (a first Ctrl-C or SIGTERM finishes the current shape, a second drops
/// it). `progress` is told what happens, one line at a time, `tty` whether it may redraw one line.
[[nodiscard]] suite_run_result run_suite_plan(const suite_run_plan& plan, tuning_options tuning,
                                              const std::function<void(const std::string&)>& progress,
                                              bool tty);

/// What kbench run prints at the end: the table of shapes, the totals and verdict counts, the machine,
/// tuning and calibration notes, and why each shape that failed failed.
[[nodiscard]] std::string render_suite_run(const suite_run_plan& plan, const suite_run_result& run,
                                           const tuning_options& tuning);

/// The v3 records of every shape of the run (shape_records).
[[nodiscard]] nlohmann::json suite_run_records(const suite_run_plan& plan, const suite_run_result& run);

}  // namespace kbench::suite
