#pragma once
// Results as the PyTorch benchmark hub's JSON (schema v3): a list of records, one per
// kernel x shape x implementation x metric (docs/suite.md, "Results files").

#include <kbench/device.hpp>
#include <kbench/measure.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace kbench::io {

/// Where a record was measured and with what; the fields of `benchmark.extra_info` and `model`.
struct record_context {
  std::string kernel;
  std::string shape;   // "[1024,256]"
  device_info device;  // the device the implementation ran on
  // The backend the records name (benchmark.extra_info.backend, model.backend, runners[0].name); empty:
  // device.backend's. kbench for Python names the framework whose outputs it waited on (jax, torch-cuda,
  // ...).
  std::string backend_label;
  std::string effort = "none";
  std::string config = "{}";  // JSON text of the config used
  std::string dtype = "float32";
  std::int64_t timestamp = 0;                       // [seconds since the Unix epoch]
  nlohmann::json extra = nlohmann::json::object();  // more benchmark.extra_info fields
};

/// One v3 record with every field of the PyTorch hub's oss_ci_benchmark_v3 schema, with its types: every
/// extra_info a map of strings (non-string values as their JSON text); repo, head_branch, head_sha,
/// workflow_id and run_attempt from GitHub Actions' environment where set ($KBENCH_JOB_ID for job_id),
/// else empty and 0. `values` are the raw samples (or one value); `metric_extra` goes to metric.extra_info.
[[nodiscard]] nlohmann::json make_record(const record_context& context, const std::string& metric,
                                         const std::vector<double>& values,
                                         nlohmann::json metric_extra = nlohmann::json::object());

/// The records of one measurement: latency_ms, throughput_ms and device_ms (the samples, with median, cv and
/// the median's 99% interval) and capture_ratio (captured and dispatched calls), each with the checks (valid,
/// result and barrier sync violations) in metric.extra_info; and, where /proc is read, machine_disturbed (1
/// or 0, the detail in its extra_info). The samples of an invalid measurement are no values (invalid_samples
/// below).
[[nodiscard]] nlohmann::json measurement_metric_records(const record_context& context, const measurement& m);

/// A timing record whose samples failed their sync checks: `benchmark_values` empty, the raw samples under
/// metric.extra_info.invalid_samples, so that the history, the hub and the report never take a
/// dispatch-only time for a latency.
[[nodiscard]] nlohmann::json make_timing_record(const record_context& context, const std::string& metric,
                                                const std::vector<double>& values, bool valid,
                                                nlohmann::json metric_extra = nlohmann::json::object());

/// `runners[0]` of a record, as the PyTorch hub means it: name = the runner ($RUNNER_NAME, else the host
/// name), type = the device; the host's CPU, memory and GPUs; extra_info: hostname, backend, platform,
/// driver_version.
[[nodiscard]] nlohmann::json runner_of(const device_info& device);

/// Why `doc` is not a list of v3 records (empty string when it is).
[[nodiscard]] std::string validate_records(const nlohmann::json& doc);

/// Throws usage_error (exit status 2) saying why when `path` cannot be written (check_writable) or exists
/// and is not a list of v3 records: what a command checks before it measures anything, so that it never
/// overwrites a file it did not write (append_records checks again) and no run ends unable to save.
void check_appendable(const std::filesystem::path& path);

/// Appends `records` to the JSON list in `path`, creating it if absent. An existing file that is not a valid
/// list of v3 records is never touched: throws kbench::error saying why. The file is replaced atomically
/// (written beside it, flushed, renamed), so a crash never leaves it half-written.
void append_records(const std::filesystem::path& path, const nlohmann::json& records);

/// append_records, and when that fails at the end of a run (the disk filled, the directory went away):
/// the records alone, written to <cache directory>/unsaved/<name>-<seconds>.json, so that a run's results
/// are never lost to the last step. Returns where they went; `failure` says why `path` failed (empty when
/// it did not). Throws only when the rescue fails too.
[[nodiscard]] std::filesystem::path append_records_or_rescue(const std::filesystem::path& path,
                                                             const nlohmann::json& records,
                                                             std::string& failure);

}  // namespace kbench::io
