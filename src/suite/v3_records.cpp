#include <kbench/host_tensor.hpp>
#include <kbench/io/run_marks.hpp>
#include <kbench/suite/v3_records.hpp>

#include <fmt/format.h>

namespace kbench::suite {

namespace {
/// The accuracy record every implementation gets, measured or not: 1 when it matched the reference.
nlohmann::json accuracy_record(const io::record_context& context, bool passed, double max_abs_error,
                               double max_rel_error, std::size_t mismatches) {
  return io::make_record(
      context, "accuracy", {passed ? 1.0 : 0.0},
      {{"max_abs_error", max_abs_error}, {"max_rel_error", max_rel_error}, {"mismatches", mismatches}});
}
}  // namespace

nlohmann::json shape_records(const shape_result& r, const std::string& effort, std::int64_t timestamp,
                             const std::optional<calibration>& peak, double min_effect) {
  nlohmann::json records = nlohmann::json::array();
  auto add_impl = [&](const impl_result& impl) {
    io::record_context context;
    context.kernel = r.kernel;
    context.shape = r.shape;
    context.device = impl.device;
    context.backend_label = impl.backend_label;
    context.effort = effort;
    context.config = impl.config;
    context.timestamp = timestamp;
    // impl: which implementation (kbench; torch, or a Python kernel's baseline) when the backends alone do
    // not tell them apart (a Python kernel and a NumPy baseline both run on the host).
    context.extra = {{"status", std::string(to_string(r.status))}, {"command", "run"}, {"impl", impl.impl}};
    if (impl.impl == "kbench") context.extra["config_source"] = r.config_source;
    if (!r.reason.empty()) context.extra["reason"] = r.reason;
    if (!impl.baseline_form.empty()) context.extra["baseline_form"] = impl.baseline_form;
    if (impl.impl == "torch" && r.baseline && r.baseline->threads > 0) {
      context.extra["torch_threads"] = std::to_string(r.baseline->threads);
      context.extra["gomp_spincount"] = std::to_string(r.baseline->spin);
      context.extra["torch_setting_source"] = r.baseline->source;
    }
    if (const std::string why = impl.measures_disagreement(); !why.empty()) context.extra["measures"] = why;
    if (r.machine) {
      context.extra["machine"] = r.machine->quiet ? "quiet" : "disturbed";
      context.extra["machine_detail"] = r.machine->describe();
    }
    const nlohmann::json checks{{"valid", impl.valid}, {"sync_violations", impl.sync_violations}};
    auto with = [&](nlohmann::json extra) {
      for (auto& [k, v] : checks.items()) extra[k] = v;
      return extra;
    };
    records.push_back(
        accuracy_record(context, impl.accurate, impl.max_abs_error, impl.max_rel_error, impl.mismatches));
    if (impl.latency_ms.empty()) return;
    records.push_back(io::make_timing_record(context, "latency_ms", impl.latency_ms, impl.valid,
                                             with({{"stat", "median"}})));
    records.push_back(io::make_timing_record(context, "throughput_ms", impl.throughput_ms, impl.valid,
                                             with({{"stat", "median"}})));
    records.push_back(
        io::make_timing_record(context, "device_ms", impl.device_ms, impl.valid, with({{"stat", "median"}})));
    const double ratio = impl.dispatched == 0
                             ? 0.0
                             : static_cast<double>(impl.captured) / static_cast<double>(impl.dispatched);
    records.push_back(io::make_record(context, "capture_ratio", {ratio},
                                      with({{"captured", impl.captured}, {"dispatched", impl.dispatched}})));
    // Whether the machine was busy while the shape was timed, as a metric: the history keeps metrics (it
    // drops extra_info), so that the detector leaves disturbed points out and the report marks them
    // (history/machine_marks.hpp).
    if (r.machine && r.machine->measured) {
      records.push_back(io::make_record(context, std::string(io::machine_disturbed_metric),
                                        {r.machine->quiet ? 0.0 : 1.0},
                                        {{"machine_detail", r.machine->describe()}}));
    }
    if (impl.impl != "kbench") return;
    if (r.config_source == "tuned" || r.config_source == "no_valid_config") {
      records.push_back(
          io::make_record(context, "autotune_s", {r.tuning_s},
                          {{"evaluations", r.tuning_evaluations}, {"config_source", r.config_source}}));
    }
    // What follows divides by the latency: nothing of it from samples that failed their checks.
    if (!impl.valid || (r.torch && !r.torch->valid)) return;
    if (auto s = r.speedup_interval(min_effect)) {
      records.push_back(io::make_record(
          context, "speedup", {s->ratio},
          with({{"baseline", r.torch->backend_label.empty() ? std::string("torch") : r.torch->backend_label},
                {"interval_low", s->low},
                {"interval_high", s->high},
                {"min_effect", s->min_effect},
                {"verdict", std::string(s->verdict())}})));
      // The verdict itself, as a metric: what the report draws (the history drops extra_info).
      records.push_back(io::make_record(context, std::string(io::speedup_verdict_metric),
                                        {io::verdict_code(s->verdict()).value_or(0.0)},
                                        {{"verdict", std::string(s->verdict())}}));
    }
    if (auto bw = r.bandwidth_gbps()) {
      nlohmann::json extra = with({{"bytes_moved", r.bytes_moved}});
      if (peak) {
        extra["peak_triad_gbps"] = peak->triad_gbps;
        // A shape the caches served: its share of the memory's peak means nothing (share_of_peak).
        if (const auto share = r.share_of_peak(peak->triad_gbps, cache_bytes_of(impl.device))) {
          extra["from_cache"] = share->from_cache;
          // As a metric too, so that the report says "cache" where the run did.
          records.push_back(io::make_record(context, std::string(io::served_from_cache_metric),
                                            {share->from_cache ? 1.0 : 0.0},
                                            {{"bytes_moved", r.bytes_moved}}));
        }
      }
      if (auto triad = r.triad ? r.triad->gbps() : std::nullopt) {
        extra["triad_same_turns_gbps"] = *triad;
        extra["triad_same_turns_stores"] = r.triad->stores;
      }
      records.push_back(io::make_record(context, "bandwidth_gbps", {*bw}, extra));
    }
    // What a compute-bound shape is judged by (the report draws it instead of its % of peak bandwidth).
    if (auto gflops = r.gflops(); gflops && r.compute_bound()) {
      records.push_back(io::make_record(context, "gflops", {*gflops},
                                        with({{"flops", r.flops}, {"bytes_moved", r.bytes_moved}})));
    }
    // Its own metric, so that the history keeps it (it drops extra_info) and the detector and the report
    // judge it.
    if (auto share = r.triad_fraction()) {
      records.push_back(io::make_record(context, "triad_fraction", {*share},
                                        with({{"triad_same_turns_gbps", *r.triad->gbps()},
                                              {"triad_same_turns_stores", r.triad->stores},
                                              {"bytes_moved", r.bytes_moved}})));
    }
  };
  if (r.kbench) add_impl(*r.kbench);
  if (r.torch) add_impl(*r.torch);
  if (!r.kbench && !r.torch) {
    // Nothing ran (crash, timeout, unavailable): one record keeps the failure visible.
    io::record_context context;
    context.kernel = r.kernel;
    context.shape = r.shape;
    context.effort = effort;
    context.timestamp = timestamp;
    context.extra = {{"status", std::string(to_string(r.status))}, {"reason", r.reason}, {"command", "run"}};
    records.push_back(io::make_record(context, "accuracy", {0.0}));
  }
  return records;
}

nlohmann::json measurement_records(const kernel_definition& kernel, const shape& s,
                                   const implementation_measurement& m, std::int64_t timestamp,
                                   const std::string& fault) {
  io::record_context context;
  context.kernel = kernel.name;
  context.shape = kbench::to_string(s);
  context.device = m.device;
  context.config = to_json_text(m.used_config);
  context.timestamp = timestamp;
  context.extra = {{"status", std::string(to_string(m.status))}, {"command", "measure"}};
  if (fault != "none") context.extra["injected_sync_fault"] = fault;
  if (!m.error.empty()) context.extra["error"] = m.error;

  nlohmann::json records = nlohmann::json::array();
  records.push_back(accuracy_record(context, m.accuracy.passed, m.accuracy.max_abs_error,
                                    m.accuracy.max_rel_error, m.accuracy.mismatches));
  if (!m.timing) return records;
  context.extra["machine"] = m.timing->machine.quiet ? "quiet" : "disturbed";
  context.extra["machine_detail"] = m.timing->machine.describe();
  for (auto& r : io::measurement_metric_records(context, *m.timing)) records.push_back(std::move(r));
  return records;
}

}  // namespace kbench::suite
