// `kbench run`: the suite. Each kernel x shape runs in a fresh worker process (checked against torch, timed
// against the torch baseline); the summary table ends with the per-shape totals and the geometric-mean
// speedup.

#include <kbench/backends/registry.hpp>
#include <kbench/contention.hpp>
#include <kbench/error.hpp>
#include <kbench/history/records.hpp>
#include <kbench/history/store.hpp>
#include <kbench/host_cache.hpp>
#include <kbench/io/json_v3.hpp>
#include <kbench/suite/baseline_tuning.hpp>
#include <kbench/suite/calibrate.hpp>
#include <kbench/suite/registry.hpp>
#include <kbench/suite/shard.hpp>
#include <kbench/suite/stop_signals.hpp>
#include <kbench/suite/suite.hpp>
#include <kbench/suite/triad_probe.hpp>
#include <kbench/suite/tune_shape.hpp>
#include <kbench/suite/v3_records.hpp>

#include "commands.hpp"
#include "save_records.hpp"
#include "spec_files.hpp"
#include "text_table.hpp"
#include "tolerance_option.hpp"
#include "tuning_summary.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <string_view>
#include <thread>

namespace kbench::cli {

namespace {

std::string ms_cell(const std::optional<runner::impl_result>& r) {
  if (!r || r->latency_ms.empty()) return "-";
  return fmt::format("{:.4f}", r->median_latency_ms());
}

// The % triad cell: kbench's share of the triad timed in its turns, and that triad's bandwidth, which on a
// shared host can be far from the calibrated one (on the development VM it jumped between about 47 and 77
// GB/s from one shape to the next), so that a reader sees which the share was taken against.
std::string triad_cell(double share, double triad_gbps) {
  return fmt::format("{:.0f}% of {:.0f} GB/s", 100.0 * share, triad_gbps);
}

}  // namespace

int run(const run_command& command) {
  // Validate everything before running anything: bad input exits 2 without side effects.
  runner::suite_selection selection;
  selection.kernels = command.kernels;
  const std::vector<std::string> spec_kernels = load_spec_files(command.specs);
  if (!spec_kernels.empty() && selection.kernels.empty()) {
    selection.kernels = spec_kernels;
    if (command.builtin) {
      for (const auto& k : all_kernels()) {
        if (k.definition_file.empty()) selection.kernels.push_back(k.name);
      }
    }
  } else if (command.builtin) {
    throw usage_error("--builtin goes with --spec and without --kernel");
  }
  if (command.num_shapes != -1) selection.num_shapes = command.num_shapes;
  if (command.shape_index >= 0) selection.shape_index = command.shape_index;
  if (!command.shape.empty()) selection.shape = command.shape;
  const auto shard = runner::parse_shard(command.shard);
  const auto full_plan = runner::plan_suite(selection);
  const auto plan = runner::select_shard(full_plan, shard);
  if (shard.count > 1 && !command.list) {
    fmt::print(stderr, "[kbench] shard {}/{}: {} of {} kernel x shape items\n", shard.index, shard.count,
               plan.size(), full_plan.size());
  }

  runner::suite_options options;
  std::vector<std::string> backend_names{"auto"};
  for (backend_kind kind : all_backend_kinds()) {
    if (kind != backend_kind::torch) backend_names.emplace_back(to_string(kind));
  }
  if (std::find(backend_names.begin(), backend_names.end(), command.backend) == backend_names.end()) {
    throw usage_error(
        fmt::format("unknown backend '{}' (valid: {})", command.backend, fmt::join(backend_names, ", ")));
  }
  options.backend = command.backend == "auto" ? pick_auto_backend() : parse_backend_kind(command.backend);
  for (const auto& impl : command.impls) {
    if (impl != "kbench" && impl != "torch") {
      throw usage_error(fmt::format("unknown implementation '{}' (valid: kbench, torch)", impl));
    }
  }
  if (!command.impls.empty()) {
    options.run_kbench =
        std::find(command.impls.begin(), command.impls.end(), "kbench") != command.impls.end();
    options.run_torch = std::find(command.impls.begin(), command.impls.end(), "torch") != command.impls.end();
  }
  // A kbench built without libtorch has no baseline: by default it runs kbench alone (each result checked
  // against the kernel's cpu implementation); asking for torch is an error.
  const bool has_baseline = std::any_of(
      full_plan.begin(), full_plan.end(),
      [](const runner::suite_item& item) { return item.kernel->find(backend_kind::torch) != nullptr; });
  if (!has_baseline && options.run_torch) {
    if (!command.impls.empty()) {
      throw usage_error(
          "--impl torch: this kbench has no torch baseline (built without libtorch); valid: kbench");
    }
    options.run_torch = false;
  }
  options.atol = parse_tolerance("--atol", command.atol);
  options.rtol = parse_tolerance("--rtol", command.rtol);
  runner::tuning_options tuning =
      tuning_options_from(command.tuning, command.effort, options.backend, command.seed);
  if (!(command.timeout_per_kernel_s > 0)) {
    throw usage_error(
        fmt::format("--timeout-per-kernel must be positive, got {}", command.timeout_per_kernel_s));
  }
  if (!(command.triad_min_mib >= 0)) {
    throw usage_error(
        fmt::format("--triad-min-mib must be a non-negative number, got {}", command.triad_min_mib));
  }
  options.seed = command.seed;
  options.target_ms = command.target_ms;
  options.require_quiet_s = command.require_quiet_s;
  options.timeout_per_shape_s = command.timeout_per_kernel_s;
  options.triad_min_bytes = command.triad_min_mib * 1024.0 * 1024.0;
  if (command.list) {
    // The plan only, one "kernel shape" line per item: what this shard would run (CI splits, dry runs).
    for (const auto& item : plan) {
      fmt::print("{} {}\n", item.kernel->name, to_string(item.kernel->shapes[item.shape_index]));
    }
    return 0;
  }
  if (!command.output.empty()) io::check_appendable(command.output);
  // Open the history first: an unreachable database is reported before anything runs.
  std::unique_ptr<history::store> db;
  if (!command.db.empty()) db = history::open_store(command.db);

  const auto statuses = probe_backends();
  const auto status = std::find_if(statuses.begin(), statuses.end(),
                                   [&](const auto& s) { return s.kind == options.backend; });
  if (options.run_kbench && (status == statuses.end() || !status->available)) {
    KBENCH_THROW("backend {} unavailable: {}", to_string(options.backend),
                 status == statuses.end() ? "unknown" : status->reason);
  }

  std::optional<calibration> peak;
  if (options.run_kbench && status != statuses.end() && !status->devices.empty()) {
    peak = cached_calibration(status->devices.front());
    if (!peak) {
      fmt::print(stderr,
                 "[kbench] no bandwidth calibration of {} from the last {:g} days: calibrating once, for "
                 "% peak BW (about 20 s; `kbench calibrate` does it ahead)\n",
                 status->devices.front().name, calibration_max_age_days);
      peak =
          calibrate_device(open_device(options.backend), stream_default_elements,
                           [](int round, int rounds, double triad_gbps) {
                             fmt::print(stderr, "[kbench] calibrating: round {} of {}, triad {:.1f} GB/s\n",
                                        round, rounds, triad_gbps);
                           });
      try {
        store_calibration(*peak);
      } catch (const error& e) {  // the run uses it anyway; the next run calibrates again
        fmt::print(stderr, "[kbench] warning: {}\n", e.what());
      }
    }
  }
  // Large shapes time a triad beside them, with the stores of the calibration's peak (triad_probe.hpp).
  if (peak) options.triad_stores = peak->triad_stores;

  const bool tty = ::isatty(STDERR_FILENO) != 0;
  // Configs: from the tuning cache, by tuning (effort quick/full) or the defaults; chosen in this process,
  // every config trial in its own worker.
  const device_info tuning_device =
      status != statuses.end() && !status->devices.empty() ? status->devices.front() : device_info{};
  tuning.progress = [&](const std::string& line) {
    if (!tty) fmt::print(stderr, "{}\n", line);
  };
  std::size_t cache_hits = 0, tuned = 0, misses = 0;
  double tuning_total_s = 0;
  tuning_summary tuning_by_kernel;
  // The torch baseline at its best: its thread count and spin count per shape, from the tuning cache or
  // timed now (baseline_tuning.hpp), whatever the effort: a speedup against a handicapped torch says nothing.
  std::optional<device_info> torch_device;
  if (options.run_torch && has_baseline) torch_device = open_device(backend_kind::torch)->info();
  runner::baseline_options baseline_options;
  baseline_options.seed = command.seed;
  baseline_options.target_ms = command.target_ms / 2;
  baseline_options.cache = tuning.cache;
  baseline_options.cache_directory = tuning.cache_directory;
  std::size_t baselines_tuned = 0, baselines_cached = 0;
  double baseline_tuning_s = 0;
  auto choose_baseline = [&](const runner::suite_item& item, runner::item_plan& plan_of_item) {
    if (!torch_device || item.kernel->find(backend_kind::torch) == nullptr) return;
    runner::baseline_setting setting =
        runner::choose_baseline_setting(*item.kernel, item.shape_index, *torch_device, baseline_options);
    for (const auto& w : setting.warnings) fmt::print(stderr, "[kbench] {}\n", w);
    (setting.source == "tuned" ? baselines_tuned : baselines_cached) += 1;
    baseline_tuning_s += setting.tuning_s;
    plan_of_item.baseline = std::move(setting);
  };
  options.plan_item = [&](const runner::suite_item& item) {
    runner::item_plan plan_of_item;
    choose_baseline(item, plan_of_item);
    return plan_of_item;
  };
  if (options.run_kbench) {
    options.plan_item = [&](const runner::suite_item& item) {
      runner::item_plan plan_of_item;
      choose_baseline(item, plan_of_item);
      const runner::tuning_outcome chosen =
          runner::choose_config(*item.kernel, item.shape_index, tuning_device, tuning);
      for (const auto& w : chosen.warnings) fmt::print(stderr, "[kbench] {}\n", w);
      plan_of_item.config_source = std::string(to_string(chosen.source));
      plan_of_item.tuning_s = chosen.tuning_s;
      plan_of_item.tuning_evaluations = chosen.evaluations;
      tuning_total_s += chosen.tuning_s;
      tuning_by_kernel.add(item.kernel->name, chosen);
      switch (chosen.source) {
        case runner::config_source::cache_miss:
          ++misses;
          plan_of_item.failure = runner::shape_status::cache_miss;
          plan_of_item.reason = chosen.message;
          // One line now; the key and the nearest cached entries are printed once, in the summary.
          fmt::print(stderr, "[kbench] {} {}: cache miss (--assert-cache-hit); the key is in the summary\n",
                     item.kernel->name, to_string(item.kernel->shapes[item.shape_index]));
          return plan_of_item;
        case runner::config_source::cache_hit:
          ++cache_hits;
          break;
        case runner::config_source::tuned:
        case runner::config_source::no_valid_config:
          ++tuned;
          if (!tty) {
            fmt::print(stderr, "[kbench] tuned {} {} in {:.1f} s ({} configs, {} failed): {}\n",
                       item.kernel->name, to_string(item.kernel->shapes[item.shape_index]), chosen.tuning_s,
                       chosen.evaluations, chosen.failed, to_json_text(chosen.chosen));
          }
          break;
        default:
          break;
      }
      if (chosen.source != runner::config_source::untunable) plan_of_item.config = chosen.chosen;
      return plan_of_item;
    };
  }
  const auto started = std::chrono::steady_clock::now();
  auto elapsed_s = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  };
  options.on_start = [&](std::size_t i, std::size_t n, const runner::suite_item& item) {
    const std::string line = fmt::format("[{}/{}] {} {} ({:.1f} s elapsed)", i + 1, n, item.kernel->name,
                                         to_string(item.kernel->shapes[item.shape_index]), elapsed_s());
    if (tty) fmt::print(stderr, "\r\033[K{}", line);
  };
  options.on_done = [&](std::size_t i, std::size_t n, const runner::shape_result& r) {
    if (tty) {
      fmt::print(stderr, "\r\033[K");
    } else {
      fmt::print(stderr, "[{}/{}] {} {}: {} ({:.1f} s, {:.1f} s elapsed)\n", i + 1, n, r.kernel, r.shape,
                 to_string(r.status), r.elapsed_s, elapsed_s());
    }
  };
  const runner::stop_signal_scope stop_signals_handled;
  options.stop_requested = [] { return runner::stop_requested(); };
  const auto timestamp =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
          .count();

  const auto results = runner::run_suite(plan, options);

  // A triad timed beside a shape that went above the calibrated peak shows the peak was low (calibrated in
  // a busy stretch): the peak is raised to it, in the cache too, before any share of it is printed.
  if (peak) {
    const runner::shape_result* fastest = nullptr;
    for (const auto& r : results) {
      if (r.triad && r.triad->gbps() && (fastest == nullptr || *r.triad->gbps() > *fastest->triad->gbps()))
        fastest = &r;
    }
    if (fastest != nullptr) {
      try {
        const double old_gbps = peak->triad_gbps;
        if (auto raised =
                raise_peak(*peak, *fastest->triad->gbps(),
                           fmt::format("same-turns triad beside {} {}", fastest->kernel, fastest->shape))) {
          fmt::print(stderr,
                     "[kbench] the triad timed beside {} {} reached {:.1f} GB/s, above the calibrated "
                     "peak of {:.1f} GB/s: the peak is raised to it\n",
                     fastest->kernel, fastest->shape, raised->triad_gbps, old_gbps);
          peak = std::move(raised);
        }
      } catch (const error& e) {  // the run's figures stand; the cache keeps the old peak
        fmt::print(stderr, "[kbench] warning: {}\n", e.what());
      }
    }
  }

  // Summary.
  text_table table({"Kernel", "Shape", "Status", "kbench (ms)", "torch (ms)", "torch setting", "Speedup",
                    "Interval", "% peak BW", "% triad"});
  std::size_t passed = 0;
  std::map<std::string_view, std::size_t> verdicts;  // faster / same / slower / unreliable -> ok shapes
  std::size_t disturbed = 0;                         // shapes timed while the machine was busy
  double log_speedup_sum = 0;
  std::size_t speedups = 0;
  std::vector<std::string> reasons;
  std::map<std::string, std::string> baseline_forms;
  std::size_t triad_shapes = 0;          // shapes with a triad timed beside them
  std::size_t compute_bound_shapes = 0;  // shapes shown in GFLOP/s
  std::size_t cache_shapes = 0;          // shapes the caches served: "cache" in % peak BW
  std::size_t disagreeing = 0;           // implementations whose three measures disagree
  for (const auto& r : results) {
    const auto s = r.speedup_interval(command.min_effect);
    std::string bw_cell = "-";
    const auto gflops = r.gflops();
    if (r.compute_bound() && gflops) {
      bw_cell = fmt::format("{:.0f} GFLOP/s", *gflops);  // its share of the bandwidth says nothing
      ++compute_bound_shapes;
    } else if (const auto share = peak && r.kbench ? r.share_of_peak(peak->triad_gbps,
                                                                     runner::cache_bytes_of(r.kbench->device))
                                                   : std::nullopt) {
      bw_cell = share->from_cache ? "cache" : fmt::format("{:.0f}%", 100.0 * share->fraction);
      if (share->from_cache) ++cache_shapes;
    }
    const auto same_turns = r.triad_fraction();
    if (same_turns) ++triad_shapes;
    table.add_row({r.kernel, r.shape, std::string(to_string(r.status)), ms_cell(r.kbench), ms_cell(r.torch),
                   r.baseline && r.torch ? r.baseline->describe() : "-",
                   s ? fmt::format("{:.2f}x", s->ratio) : "-",
                   s ? fmt::format("{:.2f}-{:.2f} {}", s->low, s->high, s->verdict()) : "-", bw_cell,
                   same_turns ? triad_cell(*same_turns, r.triad->gbps().value_or(0)) : "-"});
    if (r.status == runner::shape_status::ok) {
      ++passed;
      if (s && s->ratio > 0) {
        ++verdicts[s->verdict()];
        if (!s->disturbed) {  // a busy machine's ratio says nothing about the kernels
          log_speedup_sum += std::log(s->ratio);
          ++speedups;
        }
      }
    } else {
      reasons.push_back(fmt::format("{} {}: {}: {}", r.kernel, r.shape, to_string(r.status), r.reason));
    }
    if (r.torch && !r.torch->baseline_form.empty()) baseline_forms[r.kernel] = r.torch->baseline_form;
    for (const auto* impl : {&r.kbench, &r.torch}) {
      if (!*impl) continue;
      if (const std::string why = (*impl)->measures_disagreement(); !why.empty()) {
        ++disagreeing;
        reasons.push_back(fmt::format("{} {}: {}: {}", r.kernel, r.shape, (*impl)->impl, why));
      }
    }
    if (r.machine && !r.machine->quiet) {
      ++disturbed;
      reasons.push_back(
          fmt::format("{} {}: timed on a busy machine: {}", r.kernel, r.shape, r.machine->reason));
    }
  }
  fmt::print("kbench run: backend {} ({}), effort {}, seed {}\n", to_string(options.backend),
             status != statuses.end() && !status->devices.empty() ? status->devices.front().name : "-",
             command.effort, command.seed);
  fmt::print("{}", table.render());
  fmt::print("Total: {}/{} shapes passed", passed, results.size());
  if (results.size() < plan.size())
    fmt::print(" (interrupted: {} of {} shapes not run)", plan.size() - results.size(), plan.size());
  if (speedups > 0) {
    fmt::print("; geometric-mean speedup {:.2f}x over {} shapes",
               std::exp(log_speedup_sum / static_cast<double>(speedups)), speedups);
    if (verdicts["unreliable"] > 0) fmt::print(" ({} unreliable ones left out)", verdicts["unreliable"]);
  } else if (verdicts["unreliable"] > 0) {
    fmt::print("; no geometric-mean speedup (every speedup was timed on a busy machine)");
  }
  fmt::print("; wall time {:.1f} s\n", elapsed_s());
  if (speedups + verdicts["unreliable"] > 0) {
    // A ratio near 1 is often noise: the interval says whether the two were told apart at all.
    fmt::print(
        "Against torch: {} faster, {} same within noise, {} slower, {} unreliable (Interval: the\n"
        "speedup while each median ranges over its 99% confidence interval, >= 98% together;\n"
        "faster/slower when it excludes 1 and the speedup is at least {:g}% from 1; unreliable when\n"
        "other work took more than {:.0f}% of the CPUs while the shape was timed)\n",
        verdicts["faster"], verdicts["same"], verdicts["slower"], verdicts["unreliable"],
        100 * command.min_effect, 100 * max_quiet_others_fraction);
  }
  if (disagreeing > 0) {
    fmt::print(
        "Measures: {} implementation{} whose throughput or device time disagrees with the latency (below);\n"
        "the speedup uses the latency of the interleaved turns\n",
        disagreeing, disagreeing == 1 ? "" : "s");
  }
  if (disturbed > 0) {
    fmt::print("Machine: {} of {} timed shapes were disturbed by other work (their reasons below)\n",
               disturbed, results.size());
  } else {
    fmt::print("Machine: quiet while every shape was timed\n");
  }
  if (options.run_kbench) {
    fmt::print(
        "Configs: {} tuned ({:.1f} s tuning), {} from the tuning cache, {} cache misses; cache {}\n", tuned,
        tuning_total_s, cache_hits, misses,
        tuning.cache == runner::cache_mode::off ? std::string("off") : tuning.cache_directory.string());
    if (!tuning_by_kernel.empty()) fmt::print("Tuning per kernel:\n{}", tuning_by_kernel.render());
  }
  if (baselines_tuned + baselines_cached > 0) {
    fmt::print(
        "torch setting: the baseline's intra-op threads and libgomp spin count (GOMP_SPINCOUNT), the "
        "fastest\n"
        "of {} settings timed per shape ({} tuned now in {:.1f} s, {} from the tuning cache)\n",
        runner::baseline_thread_counts(std::thread::hardware_concurrency()).size() *
            runner::baseline_spin_counts().size(),
        baselines_tuned, baseline_tuning_s, baselines_cached);
  }
  if (peak) {
    // When and how spread the calibration was: on a shared host the bandwidth drifts, and a cached one may be
    // old.
    const std::string spread = peak->rounds > 1
                                   ? fmt::format("the best of {} rounds, the worst {:.1f} GB/s; ",
                                                 peak->rounds, peak->triad_low_gbps)
                                   : std::string();
    fmt::print(
        "% peak BW: kbench bytes moved per call / median latency, against the {} triad of {:.1f} GB/s with\n"
        "{} stores, the best of {} calibration{} from the last {:g} days\n({}{} on {:%Y-%m-%d %H:%M} UTC; "
        "`kbench calibrate` adds one)\n",
        peak->backend, peak->triad_gbps, peak->triad_stores, peak->calibrations,
        peak->calibrations == 1 ? "" : "s", calibration_max_age_days, spread, peak->source,
        fmt::gmtime(static_cast<std::time_t>(peak->timestamp)));
    if (cache_shapes > 0) {
      fmt::print(
          "cache in % peak BW: {} shape{} served by the caches, not the memory (moving at most the {:.0f} "
          "MiB\n"
          "of last-level cache the device shares, or faster than the memory's peak): a share of the "
          "memory's\n"
          "peak says nothing about them\n",
          cache_shapes, cache_shapes == 1 ? "" : "s",
          static_cast<double>(last_level_cache_share_bytes()) / (1024.0 * 1024.0));
    }
  }
  if (compute_bound_shapes > 0) {
    fmt::print(
        "GFLOP/s in the % peak BW column: compute-bound shapes (>= {:g} flop per byte moved), kbench's\n"
        "floating-point operations per call / median latency; no triad is timed beside them\n",
        runner::compute_bound_flops_per_byte);
  }
  if (triad_shapes > 0) {
    fmt::print(
        "% triad: shapes moving >= {:g} MiB per call only: kbench's bandwidth against a triad of the same\n"
        "stores timed in the same interleaved turns (the memory's bandwidth at those moments, not its "
        "best),\n"
        "whose own GB/s follows \"of\": on a shared host it can move far from the calibrated triad\n",
        triad_probe_min_bytes(options.triad_min_bytes) / (1024.0 * 1024.0));
  }
  const bool only_spec_kernels = std::all_of(plan.begin(), plan.end(), [](const runner::suite_item& item) {
    return !item.kernel->definition_file.empty();
  });
  if (!has_baseline && only_spec_kernels) {
    fmt::print(
        "No torch baseline: kernels from spec files have none, so no speedup is measured; each result is\n"
        "checked against its spec's reference\n");
  } else if (!has_baseline) {
    fmt::print(
        "No torch baseline: this kbench was built without libtorch, so no speedup is measured and every\n"
        "result is checked against the kernel's cpu implementation at its default config\n");
  }
  if (!baseline_forms.empty()) {
    fmt::print("torch baselines:\n");
    for (const auto& [kernel, form] : baseline_forms) fmt::print("  {}: {}\n", kernel, form);
  }
  for (const auto& reason : reasons) fmt::print("  ! {}\n", reason);

  nlohmann::json records = nlohmann::json::array();
  for (const auto& r : results) {
    for (auto& rec : runner::shape_records(r, command.effort, timestamp, peak, command.min_effect))
      records.push_back(std::move(rec));
  }
  bool saved = command.output.empty() || save_records(command.output, records);
  if (db) {
    std::string commit = command.commit;
    if (const char* sha = std::getenv("GITHUB_SHA"); commit.empty() && sha != nullptr) commit = sha;
    try {
      const auto added = db->add(history::runs_from_records(records, commit));
      fmt::print("stored {} points in {}\n", added.points_added, db->description());
    } catch (const std::exception& e) {  // the database went away during the run: the records stay on disk
      fmt::print(stderr, "kbench: could not store the records in {}: {}\n", db->description(), e.what());
      if (command.output.empty() || !saved) (void)save_records("", records);
      saved = false;
    }
  }
  return passed == plan.size() && saved ? 0 : 1;
}

}  // namespace kbench::cli
