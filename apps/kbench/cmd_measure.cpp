// `kbench measure`: the three-measure table (wall latency, throughput, device time) with the capture and sync
// checks, for every implementation of one kernel at one shape.

#include <kbench/backends/registry.hpp>
#include <kbench/error.hpp>
#include <kbench/io/json_v3.hpp>
#include <kbench/io/text_table.hpp>
#include <kbench/suite/measure_kernel.hpp>
#include <kbench/suite/registry.hpp>
#include <kbench/suite/v3_records.hpp>
#include <kbench/suite/workers.hpp>

#include "commands.hpp"
#include "numeric_option.hpp"
#include "save_records.hpp"
#include "shape_choice.hpp"
#include "spec_files.hpp"
#include "subcommand.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>

namespace kbench::cli {
using namespace kbench::suite;  // the suite's kernel API, unqualified

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

}  // namespace

int measure(const measure_command& command) {
  const kernel_definition& kernel =
      find_kernel(chosen_kernel(command.kernel, load_spec_files(command.specs)));
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
  // Refuse before measuring anything: a file we cannot parse is never overwritten.
  if (!command.json_path.empty()) io::check_appendable(command.json_path);
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
  io::text_table table({"Backend", "Wall (ms)", "Throughput (ms)", "Device (ms)", "Overhead (ms)", "Capture",
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
      for (auto& r : suite::measurement_records(kernel, s, m, timestamp, command.fault))
        records.push_back(std::move(r));
    }
    if (!save_records(command.json_path, records)) return 1;
  }
  return failures > 0 ? 1 : 0;
}

namespace {

// `kbench measure`'s flags.
const subcommand_registration measure_registration{
    "measure", "The three-measure table for every implementation of one kernel/shape", [](CLI::App& app) {
      auto options = std::make_shared<measure_command>();
      app.add_option("--kernel,--op", options->kernel, "Kernel name (see `kbench list`)");
      app.add_option("--spec", options->specs,
                     "A kernel described in a file (docs/specs.md); --kernel may be left out");
      auto* shape_opt = app.add_option("--shape", options->shape, "Shape, e.g. 104857600 or [1024,256]");
      app.add_option("--shape-index", options->shape_index, "Index into the kernel's shapes")
          ->check(CLI::Range(0, std::numeric_limits<int>::max()))
          ->excludes(shape_opt);
      app.add_option(
             "--backend", options->backends,
             "Backends to run, comma-separated: auto, cpu, opencl, cuda, torch (default: every one the "
             "kernel has)")
          ->delimiter(',');
      app.add_option("--seed", options->seed, "Seed of the deterministic inputs")
          ->capture_default_str()
          ->check(any_seed());
      app.add_option("--repeat", options->timing.repeat, "Wall-latency samples (0: fill --target-ms)")
          ->capture_default_str()
          ->check(count_in(0, 1e6));
      app.add_option("--target-ms", options->timing.target_ms, "Time budget the repeat count fills [ms]")
          ->capture_default_str()
          ->check(number_in(0.001, 600000));
      app.add_option("--warmup", options->timing.warmup, "Warm-up calls, each synced")
          ->capture_default_str()
          ->check(count_in(0, 1e6));
      app.add_option("--throughput-calls", options->timing.throughput_calls,
                     "Calls per throughput batch (0: = repeat)")
          ->capture_default_str()
          ->check(count_in(0, 1e6));
      app.add_flag(
          "--flush-cache", options->timing.flush_cache,
          "Flush the device's caches before every wall-latency sample (cpu: every core's and the last "
          "level; a GPU: its L2)");
      app.add_option("--inject-sync-fault", options->fault,
                     "Make result waits, the barrier or both no-ops: none|result|barrier|both")
          ->capture_default_str();
      app.add_option("--json", options->json_path, "Append v3 records to this JSON file");
      app.add_option("--config", options->config,
                     "Config for every implementation but torch, as JSON, e.g. '{\"GRAIN\":4096}'");
      return [options] {
        suite::exec_self_with_worker_environment(program_argv());  // torch is timed in this process
        return measure(*options);
      };
    }};
}  // namespace

}  // namespace kbench::cli
