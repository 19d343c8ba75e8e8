// v3 records and the results history for Python: kbench's record maker, its atomic writer that never
// touches a file it did not write, and the history store (kbench run --output / --db).

#include "bindings.hpp"

#include <kbench/history/records.hpp>
#include <kbench/history/store.hpp>
#include <kbench/io/json_v3.hpp>
#include <kbench/measure.hpp>
#include <kbench/stats.hpp>

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <string>
#include <vector>

namespace nb = nanobind;

namespace kbench::python {

namespace {

// The record context of a JSON object: kernel, shape, backend (the framework), device, platform, gpu,
// timestamp [s], extra; config and effort where given.
kbench::io::record_context context_of(const nlohmann::json& c) {
  kbench::io::record_context context;
  context.kernel = c.at("kernel").get<std::string>();
  context.shape = c.at("shape").get<std::string>();
  context.backend_label = c.at("backend").get<std::string>();
  context.device.name = c.at("device").get<std::string>();
  context.device.platform = c.at("platform").get<std::string>();
  context.device.backend = c.at("gpu").get<bool>() ? kbench::backend_kind::cuda : kbench::backend_kind::cpu;
  context.timestamp = c.at("timestamp").get<std::int64_t>();
  context.extra = c.at("extra");
  if (c.contains("config")) context.config = c.at("config").get<std::string>();
  if (c.contains("effort")) context.effort = c.at("effort").get<std::string>();
  return context;
}

// The v3 records of a measurement (io::measurement_metric_records), as JSON text. `context`: JSON text of
// context_of's object; `samples` (JSON text):
// wall_ms, throughput_ms, device_ms, calls_dispatched, calls_captured, result_sync_violations,
// barrier_violations. The summaries are the core's, recomputed from the samples.
std::string measurement_records(const std::string& context_json, const std::string& samples_json) {
  const nlohmann::json c = nlohmann::json::parse(context_json);
  const nlohmann::json s = nlohmann::json::parse(samples_json);
  const kbench::io::record_context context = context_of(c);
  kbench::measurement m;
  m.wall_ms = s.at("wall_ms").get<std::vector<double>>();
  m.throughput_ms = s.at("throughput_ms").get<std::vector<double>>();
  m.device_ms = s.at("device_ms").get<std::vector<double>>();
  m.wall = kbench::summarize(m.wall_ms);
  m.throughput = kbench::summarize(m.throughput_ms);
  m.device = kbench::summarize(m.device_ms);
  m.calls_dispatched = s.at("calls_dispatched").get<std::size_t>();
  m.calls_captured = s.at("calls_captured").get<std::size_t>();
  m.result_sync_violations = s.at("result_sync_violations").get<int>();
  m.barrier_violations = s.at("barrier_violations").get<int>();
  if (s.contains("machine")) {  // what else ran while it was timed (kbench.Measurement.machine)
    const auto& machine = s.at("machine");
    m.machine.measured = machine.value("measured", false);
    m.machine.quiet = machine.value("quiet", true);
    m.machine.reason = machine.value("reason", std::string());
    // The numbers its detail is written from (contention::describe), as kbench.ContentionProbe gave them.
    m.machine.wall_s = machine.value("wall_s", 0.0);
    m.machine.cpus = machine.value("cpus", 0U);
    m.machine.involuntary_switches = machine.value("involuntary_switches", std::int64_t{0});
    const double capacity_s = m.machine.wall_s * m.machine.cpus;
    m.machine.others_cpu_s = machine.value("others_fraction", 0.0) * capacity_s;
    m.machine.steal_s = machine.value("steal_fraction", 0.0) * capacity_s;
  }
  return kbench::io::measurement_metric_records(context, m).dump();
}

// One v3 record (io::make_record), as JSON text.
std::string make_record(const std::string& context_json, const std::string& metric,
                        const std::vector<double>& values, const std::string& metric_extra_json) {
  return kbench::io::make_record(context_of(nlohmann::json::parse(context_json)), metric, values,
                                 nlohmann::json::parse(metric_extra_json))
      .dump();
}

// Stores v3 records in the history database `url` (sqlite:///path, postgresql://...) as `kbench run --db`.
nb::dict history_add(const std::string& url, const std::string& records_json, const std::string& commit) {
  const nlohmann::json records = nlohmann::json::parse(records_json);
  kbench::history::add_summary added;
  std::string description;
  {
    nb::gil_scoped_release released;
    const auto store = kbench::history::open_store(url);
    added = store->add(kbench::history::runs_from_records(records, commit));
    description = store->description();
  }
  nb::dict d;
  d["runs_added"] = added.runs_added;
  d["runs_skipped"] = added.runs_skipped;
  d["points_added"] = added.points_added;
  d["description"] = description;
  return d;
}

void append_records(const std::string& path, const std::string& records_json) {
  const nlohmann::json records = nlohmann::json::parse(records_json);
  nb::gil_scoped_release released;
  kbench::io::append_records(path, records);
}

void check_appendable(const std::string& path) {
  kbench::io::check_appendable(path);
}

}  // namespace

void bind_records(nb::module_& m) {
  m.def("measurement_records", &measurement_records, nb::arg("context_json"), nb::arg("samples_json"),
        "v3 records of a measurement, as JSON text (kbench::io::measurement_metric_records).");
  m.def("make_record", &make_record, nb::arg("context_json"), nb::arg("metric"), nb::arg("values"),
        nb::arg("metric_extra_json"), "One v3 record, as JSON text (kbench::io::make_record).");
  m.def("history_add", &history_add, nb::arg("url"), nb::arg("records_json"), nb::arg("commit"),
        "Stores v3 records in a history database (kbench::history::store::add).");
  m.def("append_records", &append_records, nb::arg("path"), nb::arg("records_json"),
        "Appends v3 records to a JSON list file atomically; refuses a file that is not one "
        "(kbench::io::append_records).");
  m.def("check_appendable", &check_appendable, nb::arg("path"),
        "Raises when path exists and is not a list of v3 records.");
}

}  // namespace kbench::python
