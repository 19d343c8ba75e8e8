// The suite's engine for Python: its timing defaults, its statuses, its speedup and verdict, its v3 records
// of a kernel x shape, its served workers (the isolation every kernel runs in) and its stop signals. The
// Python front-end (python -m kbench run) decides none of these itself: a Python kernel's worker answers
// with the JSON of a suite::shape_result, as a C++ kernel's worker does, and everything said about it
// comes from here.

#include "bindings.hpp"

#include <kbench/contention.hpp>
#include <kbench/suite/accuracy.hpp>
#include <kbench/suite/results_summary.hpp>
#include <kbench/suite/served_worker.hpp>
#include <kbench/suite/shape_result.hpp>
#include <kbench/suite/stop_signals.hpp>
#include <kbench/suite/v3_records.hpp>
#include <kbench/suite/workers.hpp>
#include <kbench/timing_budget.hpp>

#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace nb = nanobind;

namespace kbench::python {

namespace {

nb::dict timing_defaults() {
  const kbench::timing_budget& b = kbench::default_timing_budget;
  nb::dict d;
  d["target_ms"] = b.target_ms;
  d["tune_target_ms"] = b.tune_target_ms;
  d["retime_within"] = b.retime_within;
  d["retime_top"] = b.retime_top;
  d["give_up_above"] = b.give_up_above;
  d["min_effect"] = b.min_effect;
  d["timeout_per_kernel_s"] = b.timeout_per_kernel_s;
  d["config_timeout_s"] = b.config_timeout_s;
  return d;
}

// The statuses of a kernel x shape, by their C++ names (suite::shape_status), as the records and the
// table spell them.
nb::dict shape_statuses() {
  using suite::shape_status;
  nb::dict names;
  const std::pair<const char*, shape_status> statuses[] = {{"ok", shape_status::ok},
                                                           {"wrong_result", shape_status::wrong_result},
                                                           {"build_error", shape_status::build_error},
                                                           {"runtime_error", shape_status::runtime_error},
                                                           {"invalid_timing", shape_status::invalid_timing},
                                                           {"crashed", shape_status::crashed},
                                                           {"timeout", shape_status::timeout},
                                                           {"unavailable", shape_status::unavailable},
                                                           {"cache_miss", shape_status::cache_miss}};
  for (const auto& [identifier, status] : statuses) names[identifier] = std::string(suite::to_string(status));
  return names;
}

nb::object speedup_dict(const std::optional<suite::speedup_estimate>& s) {
  if (!s) return nb::none();
  nb::dict d;
  d["ratio"] = s->ratio;
  d["low"] = s->low;
  d["high"] = s->high;
  d["disturbed"] = s->disturbed;
  d["min_effect"] = s->min_effect;
  d["verdict"] = std::string(s->verdict());
  return d;
}

// The engine's summary of results (suite::summarize_results) for results that are not C++ kernels': a GB/s
// column instead of % peak BW, no torch setting or % triad column.
nb::dict render_results(const std::string& results_json, std::size_t planned, double elapsed_s,
                        double min_effect) {
  const auto results = nlohmann::json::parse(results_json).get<std::vector<suite::shape_result>>();
  suite::results_summary_options options;
  options.planned = planned;
  options.elapsed_s = elapsed_s;
  options.min_effect = min_effect;
  options.baseline = "baseline";
  options.baseline_setting = false;
  options.triad = false;
  const suite::results_summary summary = suite::summarize_results(results, options);
  nb::dict d;
  d["text"] = summary.text;
  d["reasons"] = summary.reasons;
  return d;
}

std::string shape_records(const std::string& result_json, const std::string& effort, std::int64_t timestamp,
                          double min_effect) {
  const auto r = nlohmann::json::parse(result_json).get<suite::shape_result>();
  return suite::shape_records(r, effort, timestamp, std::nullopt, min_effect).dump();
}

// The outputs of a Python kernel and their reference as float64 arrays (the caller converts any dtype),
// checked by the engine's rule (check_accuracy): passed, elements, mismatches, max_abs_error, max_rel_error,
// message.
using float64_array = nb::ndarray<const double, nb::c_contig, nb::device::cpu>;

nb::dict accuracy_dict(const std::vector<float64_array>& got, const std::vector<float64_array>& want,
                       double atol, double rtol, double max_mismatch_fraction) {
  const auto views = [](const std::vector<float64_array>& arrays) {
    std::vector<suite::output_values> v;
    for (const float64_array& a : arrays) {
      kbench::shape shape;
      for (std::size_t d = 0; d < a.ndim(); ++d) shape.push_back(static_cast<std::int64_t>(a.shape(d)));
      v.push_back({std::span<const double>(a.data(), a.size()), std::move(shape)});
    }
    return v;
  };
  const std::vector<suite::output_values> got_values = views(got);
  const std::vector<suite::output_values> want_values = views(want);
  suite::accuracy_report report;
  {
    nb::gil_scoped_release released;
    report =
        suite::check_accuracy(got_values, want_values, suite::tolerance{atol, rtol, max_mismatch_fraction});
  }
  nb::dict d;
  d["passed"] = report.passed;
  d["elements"] = report.elements;
  d["mismatches"] = report.mismatches;
  d["max_abs_error"] = report.max_abs_error;
  d["max_rel_error"] = report.max_rel_error;
  d["message"] = report.message;
  return d;
}

nb::dict reply_dict(const suite::served_reply& reply) {
  nb::dict d;
  d["outcome"] = std::string(suite::to_string(reply.what));
  d["answer"] = reply.answer;
  d["signal"] = reply.signal;
  d["exit_code"] = reply.exit_code;
  d["message"] = reply.message;
  d["errors"] = reply.errors;
  return d;
}

}  // namespace

void bind_suite(nb::module_& m) {
  m.def("timing_defaults", &timing_defaults,
        "kbench's timing defaults (kbench::default_timing_budget): target_ms, tune_target_ms, retime_within, "
        "retime_top, give_up_above, min_effect, timeout_per_kernel_s, config_timeout_s.");
  m.def("shape_statuses", &shape_statuses,
        "The statuses of a kernel x shape: identifier -> name (suite::shape_status).");
  m.def(
      "estimate_speedup",
      [](const std::vector<double>& kernel_ms, const std::vector<double>& baseline_ms, bool disturbed,
         double min_effect) {
        return speedup_dict(suite::estimate_speedup(kernel_ms, baseline_ms, disturbed, min_effect));
      },
      nb::arg("kernel_ms"), nb::arg("baseline_ms"), nb::arg("disturbed"), nb::arg("min_effect"),
      "The speedup with its interval and verdict (suite::estimate_speedup), or None.");
  m.def(
      "finish_probe_json",
      [](const kbench::contention_probe& probe, double min_window_s) {
        kbench::contention c;
        {
          nb::gil_scoped_release released;
          c = probe.finish(min_window_s);
        }
        return nlohmann::json(c).dump();
      },
      nb::arg("probe"), nb::arg("min_window_s") = kbench::min_judged_window_s,
      "ContentionProbe.finish as the JSON a suite::shape_result holds in its machine field.");
  m.def(
      "render_results", &render_results, nb::arg("results_json"), nb::arg("planned"), nb::arg("elapsed_s"),
      nb::arg("min_effect"),
      "The table, totals, verdict counts and reasons of a list of suite::shape_result (JSON), as kbench run "
      "prints them (suite::summarize_results): text, reasons.");
  m.def("check_accuracy", &accuracy_dict, nb::arg("got"), nb::arg("want"), nb::arg("atol"), nb::arg("rtol"),
        nb::arg("max_mismatch_fraction") = suite::tolerance{}.max_mismatch_fraction,
        "Outputs (float64 arrays) against their reference by the suite's rule "
        "(kbench::suite::check_accuracy).");
  m.def("shape_records", &shape_records, nb::arg("result_json"), nb::arg("effort"), nb::arg("timestamp"),
        nb::arg("min_effect"), "The v3 records of a suite::shape_result (suite::shape_records), JSON text.");

  nb::class_<suite::served_worker>(m, "ServedWorker",
                                   "A worker process that answers one request line at a time "
                                   "(suite::served_worker).")
      .def(nb::init<std::vector<std::string>, std::vector<std::string>, std::string>(), nb::arg("argv"),
           nb::arg("environment"), nb::arg("answer_prefix"))
      .def(
          "request",
          [](suite::served_worker& worker, const std::string& line, double timeout_s) {
            suite::served_reply reply;
            {
              nb::gil_scoped_release released;
              reply = worker.request(line, timeout_s);
            }
            return reply_dict(reply);
          },
          nb::arg("line"), nb::arg("timeout_s"),
          "Sends one request line; returns outcome (answered, died, timeout, aborted, failed), answer, "
          "signal, "
          "exit_code, message, errors.")
      .def(
          "stop",
          [](suite::served_worker& worker, bool kill) {
            nb::gil_scoped_release released;
            return worker.stop(kill);
          },
          nb::arg("kill") = false, "Ends the worker; returns its wait status.")
      .def_prop_ro("running", &suite::served_worker::running)
      .def_prop_ro("workers_started", &suite::served_worker::workers_started);

  nb::class_<suite::stop_signal_scope>(
      m, "StopSignals",
      "Ctrl-C, SIGTERM and SIGHUP as kbench run takes them, while it lives "
      "(suite::stop_signal_scope); the handlers before come back when it is deleted.")
      .def(nb::init<>());
  m.def("stop_requested", &suite::stop_requested, "Whether a stop signal came (suite::stop_requested).");
  m.def("first_stop_signal", &suite::first_stop_signal, "The first stop signal received, or 0.");
  m.def("abort_workers", &suite::abort_workers,
        "Kills every worker being waited for (suite::abort_workers).");
  m.def("workers_aborted", &suite::workers_aborted, "Whether abort_workers was called.");
  m.def("watch_parent", &suite::watch_parent,
        "In a worker: ends it when the process that started it is gone (suite::watch_parent).");
  m.attr("parent_pid_variable") = suite::parent_pid_variable;
}

}  // namespace kbench::python
