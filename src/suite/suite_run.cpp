#include <kbench/backends/registry.hpp>
#include <kbench/contention.hpp>
#include <kbench/error.hpp>
#include <kbench/host_cache.hpp>
#include <kbench/io/text_table.hpp>
#include <kbench/suite/baseline_tuning.hpp>
#include <kbench/suite/results_summary.hpp>
#include <kbench/suite/stop_signals.hpp>
#include <kbench/suite/suite_run.hpp>
#include <kbench/suite/triad_probe.hpp>
#include <kbench/suite/v3_records.hpp>

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <iterator>
#include <map>
#include <string_view>
#include <thread>

namespace kbench::suite {

namespace {

/// The bandwidth calibration the run's shares are of: the cache's, or one made now (about 20 s).
std::optional<calibration> peak_of(const device_info& device, backend_kind backend,
                                   const std::function<void(const std::string&)>& progress) {
  std::optional<calibration> peak = cached_calibration(device);
  if (peak) return peak;
  progress(fmt::format(
      "[kbench] no bandwidth calibration of {} from the last {:g} days: calibrating once, for % peak BW "
      "(about 20 s; `kbench calibrate` does it ahead)",
      device.name, calibration_max_age_days));
  peak = calibrate_device(open_device(backend), stream_default_elements,
                          [&](int round, int rounds, double triad_gbps) {
                            progress(fmt::format("[kbench] calibrating: round {} of {}, triad {:.1f} GB/s",
                                                 round, rounds, triad_gbps));
                          });
  try {
    store_calibration(*peak);
  } catch (const error& e) {  // the run uses it anyway; the next run calibrates again
    progress(fmt::format("[kbench] warning: {}", e.what()));
  }
  return peak;
}

/// A triad timed beside a shape that went above the calibrated peak shows the peak was low (calibrated in
/// a busy stretch): the peak is raised to it, in the cache too, before any share of it is printed.
void raise_peak_to_triads(std::optional<calibration>& peak, const std::vector<shape_result>& results,
                          const std::function<void(const std::string&)>& progress) {
  if (!peak) return;
  const shape_result* fastest = nullptr;
  for (const auto& r : results) {
    if (r.triad && r.triad->gbps() && (fastest == nullptr || *r.triad->gbps() > *fastest->triad->gbps()))
      fastest = &r;
  }
  if (fastest == nullptr) return;
  try {
    const double old_gbps = peak->triad_gbps;
    if (auto raised =
            raise_peak(*peak, *fastest->triad->gbps(),
                       fmt::format("same-turns triad beside {} {}", fastest->kernel, fastest->shape))) {
      progress(fmt::format(
          "[kbench] the triad timed beside {} {} reached {:.1f} GB/s, above the calibrated peak of {:.1f} "
          "GB/s: the peak is raised to it",
          fastest->kernel, fastest->shape, raised->triad_gbps, old_gbps));
      peak = std::move(raised);
    }
  } catch (const error& e) {  // the run's figures stand; the cache keeps the old peak
    progress(fmt::format("[kbench] warning: {}", e.what()));
  }
}

}  // namespace

backend_kind resolve_backend(const std::string& name) {
  std::vector<std::string> names{"auto"};
  for (backend_kind kind : all_backend_kinds()) {
    if (kind != backend_kind::torch) names.emplace_back(to_string(kind));
  }
  if (std::find(names.begin(), names.end(), name) == names.end()) {
    throw usage_error(fmt::format("unknown backend '{}' (valid: {})", name, fmt::join(names, ", ")));
  }
  return name == "auto" ? pick_auto_backend() : parse_backend_kind(name);
}

suite_run_plan plan_suite_run(const suite_run_request& request, std::vector<suite_item> items,
                              const std::vector<suite_item>& all_items) {
  suite_run_plan plan;
  plan.request = request;
  plan.items = std::move(items);
  suite_options& options = plan.options;
  options.backend = resolve_backend(request.backend);
  for (const auto& impl : request.impls) {
    if (impl != "kbench" && impl != "torch") {
      throw usage_error(fmt::format("unknown implementation '{}' (valid: kbench, torch)", impl));
    }
  }
  if (!request.impls.empty()) {
    options.run_kbench =
        std::find(request.impls.begin(), request.impls.end(), "kbench") != request.impls.end();
    options.run_torch = std::find(request.impls.begin(), request.impls.end(), "torch") != request.impls.end();
  }
  // A kbench built without libtorch has no baseline: by default it runs kbench alone (each result checked
  // against the kernel's cpu implementation); asking for torch is an error.
  plan.has_baseline = std::any_of(all_items.begin(), all_items.end(), [](const suite_item& item) {
    return item.kernel->find(backend_kind::torch) != nullptr;
  });
  if (!plan.has_baseline && options.run_torch) {
    if (!request.impls.empty()) {
      throw usage_error(
          "--impl torch: this kbench has no torch baseline (built without libtorch); valid: kbench");
    }
    options.run_torch = false;
  }
  if (!(request.timeout_per_kernel_s > 0)) {
    throw usage_error(
        fmt::format("--timeout-per-kernel must be positive, got {}", request.timeout_per_kernel_s));
  }
  if (!(request.triad_min_mib >= 0)) {
    throw usage_error(
        fmt::format("--triad-min-mib must be a non-negative number, got {}", request.triad_min_mib));
  }
  options.atol = request.atol;
  options.rtol = request.rtol;
  options.seed = request.seed;
  options.target_ms = request.target_ms;
  options.require_quiet_s = request.require_quiet_s;
  options.timeout_per_shape_s = request.timeout_per_kernel_s;
  options.triad_min_bytes = request.triad_min_mib * 1024.0 * 1024.0;
  return plan;
}

bool suite_run_result::all_passed() const {
  return results.size() == planned && std::all_of(results.begin(), results.end(), [](const shape_result& r) {
           return r.status == shape_status::ok;
         });
}

suite_run_result run_suite_plan(const suite_run_plan& plan, tuning_options tuning,
                                const std::function<void(const std::string&)>& progress, bool tty) {
  suite_run_result run;
  run.planned = plan.items.size();
  suite_options options = plan.options;
  const auto statuses = probe_backends();
  const auto status = std::find_if(statuses.begin(), statuses.end(),
                                   [&](const auto& s) { return s.kind == options.backend; });
  if (options.run_kbench && (status == statuses.end() || !status->available)) {
    KBENCH_THROW("backend {} unavailable: {}", to_string(options.backend),
                 status == statuses.end() ? "unknown" : status->reason);
  }
  const device_info device =
      status != statuses.end() && !status->devices.empty() ? status->devices.front() : device_info{};
  run.device_name = device.name.empty() ? "-" : device.name;
  if (options.run_kbench && !device.name.empty()) run.peak = peak_of(device, options.backend, progress);
  // Large shapes time a triad beside them, with the stores of the calibration's peak (triad_probe.hpp).
  if (run.peak) options.triad_stores = run.peak->triad_stores;

  // Configs: from the tuning cache, by tuning (effort quick/full) or the defaults; chosen in this process,
  // every config trial in its own worker.
  tuning.progress = [&](const std::string& line) {
    if (!tty) progress(line);
  };
  // The torch baseline at its best: its thread count and spin count per shape, from the tuning cache or
  // timed now (baseline_tuning.hpp), whatever the effort: a speedup against a handicapped torch says nothing.
  std::optional<device_info> torch_device;
  if (options.run_torch && plan.has_baseline) torch_device = open_device(backend_kind::torch)->info();
  baseline_options baselines;
  baselines.seed = plan.request.seed;
  baselines.target_ms = plan.request.target_ms / 2;
  baselines.cache = tuning.cache;
  baselines.cache_directory = tuning.cache_directory;
  options.plan_item = [&](const suite_item& item) {
    item_plan plan_of_item;
    if (torch_device && item.kernel->find(backend_kind::torch) != nullptr) {
      baseline_setting setting =
          choose_baseline_setting(*item.kernel, item.shape_index, *torch_device, baselines);
      for (const auto& w : setting.warnings) progress(fmt::format("[kbench] {}", w));
      (setting.source == "tuned" ? run.baselines_tuned : run.baselines_cached) += 1;
      run.baseline_tuning_s += setting.tuning_s;
      plan_of_item.baseline = std::move(setting);
    }
    if (!options.run_kbench) return plan_of_item;
    const tuning_outcome chosen = choose_config(*item.kernel, item.shape_index, device, tuning);
    for (const auto& w : chosen.warnings) progress(fmt::format("[kbench] {}", w));
    plan_of_item.config_source = std::string(to_string(chosen.source));
    plan_of_item.tuning_s = chosen.tuning_s;
    plan_of_item.tuning_evaluations = chosen.evaluations;
    run.tuning_s += chosen.tuning_s;
    run.tuning_by_kernel.add(item.kernel->name, chosen);
    const std::string shape = kbench::to_string(item.kernel->shapes[item.shape_index]);
    switch (chosen.source) {
      case config_source::cache_miss:
        ++run.cache_misses;
        plan_of_item.failure = shape_status::cache_miss;
        plan_of_item.reason = chosen.message;
        // One line now; the key and the nearest cached entries are printed once, in the summary.
        progress(fmt::format("[kbench] {} {}: cache miss (--assert-cache-hit); the key is in the summary",
                             item.kernel->name, shape));
        return plan_of_item;
      case config_source::cache_hit:
        ++run.cache_hits;
        break;
      case config_source::tuned:
      case config_source::no_valid_config:
        ++run.tuned;
        if (!tty) {
          progress(fmt::format("[kbench] tuned {} {} in {:.1f} s ({} configs, {} failed): {}",
                               item.kernel->name, shape, chosen.tuning_s, chosen.evaluations, chosen.failed,
                               to_json_text(chosen.chosen)));
        }
        break;
      default:
        break;
    }
    if (chosen.source != config_source::untunable) plan_of_item.config = chosen.chosen;
    return plan_of_item;
  };
  const auto started = std::chrono::steady_clock::now();
  auto elapsed_s = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  };
  options.on_start = [&](std::size_t i, std::size_t n, const suite_item& item) {
    if (tty) {
      progress(fmt::format("\r\033[K[{}/{}] {} {} ({:.1f} s elapsed)", i + 1, n, item.kernel->name,
                           kbench::to_string(item.kernel->shapes[item.shape_index]), elapsed_s()));
    }
  };
  options.on_done = [&](std::size_t i, std::size_t n, const shape_result& r) {
    if (tty) {
      progress("\r\033[K");
    } else {
      progress(fmt::format("[{}/{}] {} {}: {} ({:.1f} s, {:.1f} s elapsed)", i + 1, n, r.kernel, r.shape,
                           to_string(r.status), r.elapsed_s, elapsed_s()));
    }
  };
  const stop_signal_scope stop_signals_handled;
  options.stop_requested = [] { return stop_requested(); };
  run.timestamp =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
          .count();
  run.results = run_suite(plan.items, options);
  run.elapsed_s = elapsed_s();
  raise_peak_to_triads(run.peak, run.results, progress);
  return run;
}

std::string render_suite_run(const suite_run_plan& plan, const suite_run_result& run,
                             const tuning_options& tuning) {
  std::string text;
  auto out = std::back_inserter(text);
  results_summary_options view;
  view.planned = run.planned;
  view.elapsed_s = run.elapsed_s;
  view.min_effect = plan.request.min_effect;
  view.peak = run.peak;
  const results_summary summary = summarize_results(run.results, view);
  const std::size_t triad_shapes = summary.triad_shapes, compute_bound_shapes = summary.compute_bound_shapes,
                    cache_shapes = summary.cache_shapes;
  fmt::format_to(out, "kbench run: backend {} ({}), effort {}, seed {}\n", to_string(plan.options.backend),
                 run.device_name, plan.request.effort, plan.request.seed);
  text += summary.text;
  if (plan.options.run_kbench) {
    fmt::format_to(
        out, "Configs: {} tuned ({:.1f} s tuning), {} from the tuning cache, {} cache misses; cache {}\n",
        run.tuned, run.tuning_s, run.cache_hits, run.cache_misses,
        tuning.cache == cache_mode::off ? std::string("off") : tuning.cache_directory.string());
    if (!run.tuning_by_kernel.empty())
      fmt::format_to(out, "Tuning per kernel:\n{}", run.tuning_by_kernel.render());
  }
  if (run.baselines_tuned + run.baselines_cached > 0) {
    fmt::format_to(
        out,
        "torch setting: the baseline's intra-op threads and libgomp spin count (GOMP_SPINCOUNT), the "
        "fastest\n"
        "of {} settings timed per shape ({} tuned now in {:.1f} s, {} from the tuning cache)\n",
        baseline_thread_counts(std::thread::hardware_concurrency()).size() * baseline_spin_counts().size(),
        run.baselines_tuned, run.baseline_tuning_s, run.baselines_cached);
  }
  if (const auto& peak = run.peak) {
    // When and how spread the calibration was: on a shared host the bandwidth drifts, and a cached one may be
    // old.
    const std::string spread = peak->rounds > 1
                                   ? fmt::format("the best of {} rounds, the worst {:.1f} GB/s; ",
                                                 peak->rounds, peak->triad_low_gbps)
                                   : std::string();
    fmt::format_to(
        out,
        "% peak BW: kbench bytes moved per call / median latency, against the {} triad of {:.1f} GB/s with\n"
        "{} stores, the best of {} calibration{} from the last {:g} days\n({}{} on {:%Y-%m-%d %H:%M} UTC; "
        "`kbench calibrate` adds one)\n",
        peak->backend, peak->triad_gbps, peak->triad_stores, peak->calibrations,
        peak->calibrations == 1 ? "" : "s", calibration_max_age_days, spread, peak->source,
        fmt::gmtime(static_cast<std::time_t>(peak->timestamp)));
    if (cache_shapes > 0) {
      fmt::format_to(
          out,
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
    fmt::format_to(
        out,
        "GFLOP/s in the % peak BW column: compute-bound shapes (>= {:g} flop per byte moved), kbench's\n"
        "floating-point operations per call / median latency; no triad is timed beside them\n",
        compute_bound_flops_per_byte);
  }
  if (triad_shapes > 0) {
    fmt::format_to(
        out,
        "% triad: shapes moving >= {:g} MiB per call only: kbench's bandwidth against a triad of the same\n"
        "stores timed in the same interleaved turns (the memory's bandwidth at those moments, not its "
        "best),\n"
        "whose own GB/s follows \"of\": on a shared host it can move far from the calibrated triad\n",
        triad_probe_min_bytes(plan.options.triad_min_bytes) / (1024.0 * 1024.0));
  }
  const bool only_spec_kernels =
      std::all_of(plan.items.begin(), plan.items.end(),
                  [](const suite_item& item) { return !item.kernel->definition_file.empty(); });
  if (!plan.has_baseline && only_spec_kernels) {
    fmt::format_to(
        out,
        "No torch baseline: kernels from spec files have none, so no speedup is measured; each result is\n"
        "checked against its spec's reference\n");
  } else if (!plan.has_baseline) {
    fmt::format_to(
        out,
        "No torch baseline: this kbench was built without libtorch, so no speedup is measured and every\n"
        "result is checked against the kernel's cpu implementation at its default config\n");
  }
  if (!summary.baseline_forms.empty()) {
    fmt::format_to(out, "torch baselines:\n");
    for (const auto& [kernel, form] : summary.baseline_forms) fmt::format_to(out, "  {}: {}\n", kernel, form);
  }
  for (const auto& reason : summary.reasons) fmt::format_to(out, "  ! {}\n", reason);

  return text;
}

nlohmann::json suite_run_records(const suite_run_plan& plan, const suite_run_result& run) {
  nlohmann::json records = nlohmann::json::array();
  for (const auto& r : run.results) {
    for (auto& rec : shape_records(r, plan.request.effort, run.timestamp, run.peak, plan.request.min_effect))
      records.push_back(std::move(rec));
  }
  return records;
}

}  // namespace kbench::suite
