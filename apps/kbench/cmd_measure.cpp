// `kbench measure`: the three-measure table (wall latency, throughput, device time) with the capture and sync
// checks, for every implementation of one kernel at one shape.

#include <kbench/backends/registry.hpp>
#include <kbench/error.hpp>
#include <kbench/io/json_v3.hpp>
#include <kbench/suite/measure_kernel.hpp>
#include <kbench/suite/registry.hpp>

#include "commands.hpp"
#include "shape_choice.hpp"
#include "text_table.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>

namespace kbench::cli {

namespace {

std::string with_spread(const summary& s) {
  if (s.count == 0) return "-";
  return fmt::format("{:.4f} ±{:.1f}%", s.median, 100.0 * relative_spread(s));
}

std::string sync_cell(const measurement& t) {
  if (t.sync_violations() == 0) return "ok";
  std::vector<std::string> parts;
  if (t.result_sync_violations > 0) parts.push_back(fmt::format("{} early waits", t.result_sync_violations));
  if (t.barrier_violations > 0) parts.push_back(fmt::format("{} early barriers", t.barrier_violations));
  return fmt::format("FAIL ({})", fmt::join(parts, ", "));
}

nlohmann::json records_of(const kernel_definition& kernel, const shape& s,
                          const implementation_measurement& m, std::int64_t timestamp,
                          const std::string& fault) {
  io::record_context context;
  context.kernel = kernel.name;
  context.shape = to_string(s);
  context.device = m.device;
  context.config = to_json_text(m.used_config);
  context.timestamp = timestamp;
  context.extra = {{"status", std::string(to_string(m.status))}, {"command", "measure"}};
  if (fault != "none") context.extra["injected_sync_fault"] = fault;
  if (!m.error.empty()) context.extra["error"] = m.error;

  nlohmann::json records = nlohmann::json::array();
  records.push_back(io::make_record(context, "accuracy", {m.accuracy.passed ? 1.0 : 0.0},
                                    {{"max_abs_error", m.accuracy.max_abs_error},
                                     {"max_rel_error", m.accuracy.max_rel_error},
                                     {"mismatches", m.accuracy.mismatches}}));
  if (!m.timing) return records;
  const measurement& t = *m.timing;
  const nlohmann::json checks = {{"stat", "median"},
                                 {"valid", t.valid()},
                                 {"result_sync_violations", t.result_sync_violations},
                                 {"barrier_violations", t.barrier_violations}};
  auto metric = [&](const char* name, const std::vector<double>& values, const summary& st) {
    nlohmann::json extra = checks;
    extra["median"] = st.median;
    extra["cv"] = st.cv;
    extra["ci99_low"] = st.median_ci_low;
    extra["ci99_high"] = st.median_ci_high;
    records.push_back(io::make_record(context, name, values, extra));
  };
  metric("latency_ms", t.wall_ms, t.wall);
  metric("throughput_ms", t.throughput_ms, t.throughput);
  metric("device_ms", t.device_ms, t.device);
  nlohmann::json capture = checks;
  capture["captured"] = t.calls_captured;
  capture["dispatched"] = t.calls_dispatched;
  records.push_back(io::make_record(context, "capture_ratio", {t.capture_ratio()}, capture));
  return records;
}

}  // namespace

int measure(const measure_command& command) {
  const kernel_definition& kernel = find_kernel(command.kernel);
  const shape& s = kernel.shapes[choose_shape_index(kernel, command.shape, command.shape_index)];
  measure_kernel_options options;
  options.seed = command.seed;
  options.timing = command.timing;
  options.fault = parse_sync_fault(command.fault);
  if (!command.config.empty()) options.config_override = parse_config_text(command.config);
  std::vector<std::string> backend_names;
  for (backend_kind kind : all_backend_kinds()) backend_names.emplace_back(to_string(kind));
  for (const auto& name : command.backends) {
    if (name != "auto" &&
        std::find(backend_names.begin(), backend_names.end(), name) == backend_names.end()) {
      throw usage_error(
          fmt::format("unknown backend '{}' (valid: auto, {})", name, fmt::join(backend_names, ", ")));
    }
    // auto: cuda, then opencl, then cpu, whichever this machine has first.
    const backend_kind kind = name == "auto" ? pick_auto_backend() : parse_backend_kind(name);
    if (kernel.find(kind) == nullptr) {
      std::vector<std::string> valid;
      for (const auto& impl : kernel.implementations) valid.emplace_back(to_string(impl.backend));
      throw usage_error(fmt::format("kernel '{}' has no {} implementation (valid: {})", kernel.name, name,
                                    fmt::join(valid, ", ")));
    }
    options.backends.push_back(kind);
  }
  if (!command.json_path.empty() && std::filesystem::exists(command.json_path)) {
    // Refuse before measuring anything: a file we cannot parse is never overwritten.
    std::ifstream in(command.json_path);
    const auto doc = nlohmann::json::parse(in, nullptr, false);
    const std::string why = doc.is_discarded() ? "not valid JSON" : io::validate_records(doc);
    if (!why.empty()) {
      KBENCH_THROW("{} exists and is not a list of v3 records ({}); refusing to overwrite it",
                   command.json_path, why);
    }
  }
  options.progress = [](const std::string& what) { fmt::print(stderr, "[kbench] {}\n", what); };

  const auto timestamp =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
          .count();
  const auto results = measure_kernel(kernel, s, options);

  fmt::print(
      "kbench measure: {} {} float32, seed {}{}\n", kernel.name, to_string(s), command.seed,
      options.fault == sync_fault::none ? "" : fmt::format(", injected sync fault: {}", command.fault));
  for (const auto& m : results) {
    if (m.status == impl_status::unavailable) continue;
    fmt::print("  {:<7} {} ({}; config {})\n", to_string(m.backend), m.device.name, m.device.platform,
               to_json_text(m.used_config));
  }
  text_table table({"Backend", "Wall (ms)", "Throughput (ms)", "Device (ms)", "Overhead (ms)", "Capture",
                    "Sync check", "Accuracy", "Status"});
  int failures = 0;
  std::vector<std::string> notes;
  for (const auto& m : results) {
    const std::string backend(to_string(m.backend));
    const std::string accuracy = m.accuracy.elements == 0 ? "-"
                                 : m.accuracy.passed
                                     ? fmt::format("ok (max rel {:.1e})", m.accuracy.max_rel_error)
                                     : fmt::format("FAIL {}/{}", m.accuracy.mismatches, m.accuracy.elements);
    if (m.status == impl_status::unavailable) {
      table.add_row({backend, "-", "-", "-", "-", "-", "-", "-", "unavailable"});
      notes.push_back(fmt::format("{}: unavailable: {}", backend, m.error));
      if (!command.backends.empty()) ++failures;
      continue;
    }
    if (!m.timing) {
      table.add_row({backend, "-", "-", "-", "-", "-", "-", accuracy, std::string(to_string(m.status))});
      notes.push_back(fmt::format("{}: {}: {}", backend, to_string(m.status), m.error));
      ++failures;
      continue;
    }
    const measurement& t = *m.timing;
    const std::string status = t.valid() ? "ok" : "INVALID";
    table.add_row({backend, with_spread(t.wall), with_spread(t.throughput), with_spread(t.device),
                   t.device.count == 0 ? "-" : fmt::format("{:.4f}", t.wall.median - t.device.median),
                   fmt::format("{}/{}", t.calls_captured, t.calls_dispatched), sync_cell(t), accuracy,
                   status});
    for (const auto& w : t.warnings) notes.push_back(fmt::format("{}: {}", backend, w));
    if (!t.valid()) ++failures;
  }
  fmt::print("\n{}", table.render());
  fmt::print(
      "medians ±half their interquartile range (the JSON also holds the cv); overhead = wall - device; "
      "capture = calls whose device work had "
      "finished with timestamps when the timed window closed\n");
  for (const auto& note : notes) fmt::print("  ! {}\n", note);
  if (failures > 0) {
    fmt::print("{} implementation(s) failed or measured invalid: these timings must not be trusted\n",
               failures);
  }

  if (!command.json_path.empty()) {
    nlohmann::json records = nlohmann::json::array();
    for (const auto& m : results) {
      if (m.status == impl_status::unavailable) continue;
      for (auto& r : records_of(kernel, s, m, timestamp, command.fault)) records.push_back(std::move(r));
    }
    io::append_records(command.json_path, records);
    fmt::print("wrote {} records to {}\n", records.size(), command.json_path);
  }
  return failures > 0 ? 1 : 0;
}

}  // namespace kbench::cli
