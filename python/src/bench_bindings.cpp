// The measurement core (bench.hpp, measure.hpp) for Python callables.
//
// A Python call returns a handle (kbench/_sync.py) that answers for the work the call enqueued: wait()
// (the sync), is_complete() (the ground truth the sync check reads), interval_ns() (device timestamps or
// None) and has_device_clock. The handle holds the call's outputs, so they stay alive until the core has
// waited on them and dropped the result. The core runs with the GIL released; every step into Python takes
// it back, so a framework's own threads are never starved while kbench sleeps or polls.

#include "bindings.hpp"

#include <kbench/bench.hpp>
#include <kbench/contention.hpp>
#include <kbench/measure.hpp>
#include <kbench/stats.hpp>

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace nb = nanobind;

namespace kbench::python {

namespace {

// A Python object owned from C++ code that may run without the GIL: copies share one reference, and the
// last one drops it with the GIL held.
class python_ref {
 public:
  explicit python_ref(nb::object object) : m_object(new nb::object(std::move(object)), release) {}
  [[nodiscard]] const nb::object& get() const { return *m_object; }
  [[nodiscard]] bool is_none() const { return m_object->is_none(); }

 private:
  static void release(nb::object* object) {
    nb::gil_scoped_acquire gil;
    delete object;
  }
  std::shared_ptr<nb::object> m_object;
};

// One call's work, as its Python handle reports it.
class python_event final : public kbench::event {
 public:
  explicit python_event(nb::object handle)  // with the GIL held
      : m_has_clock(nb::cast<bool>(handle.attr("has_device_clock"))), m_handle(std::move(handle)) {}

  [[nodiscard]] bool is_complete() const override {
    nb::gil_scoped_acquire gil;
    return nb::cast<bool>(m_handle.get().attr("is_complete")());
  }
  void wait() override {
    nb::gil_scoped_acquire gil;
    m_handle.get().attr("wait")();
  }
  [[nodiscard]] std::optional<kbench::device_interval> interval() const override {
    if (!m_has_clock) return std::nullopt;
    nb::gil_scoped_acquire gil;
    const nb::object span = m_handle.get().attr("interval_ns")();
    if (span.is_none()) return std::nullopt;
    const auto [start, end] = nb::cast<std::tuple<std::int64_t, std::int64_t>>(span);
    return kbench::device_interval{start, end};
  }
  [[nodiscard]] bool has_device_clock() const override { return m_has_clock; }

 private:
  bool m_has_clock;
  python_ref m_handle;
};

// The work of a call that returned host values (None, numbers, strings, NumPy arrays): complete when the call
// returned, with no device clock. It holds the outputs until the result is dropped, after the timed window.
class returned_event final : public kbench::event {
 public:
  explicit returned_event(std::optional<python_ref> outputs) : m_outputs(std::move(outputs)) {}
  [[nodiscard]] bool is_complete() const override { return true; }
  void wait() override {}
  [[nodiscard]] std::optional<kbench::device_interval> interval() const override { return std::nullopt; }
  [[nodiscard]] bool has_device_clock() const override { return false; }

 private:
  std::optional<python_ref> m_outputs;
};

// A callable whose outputs were host values when kbench probed it (kbench.sync.Synchronizer): the timing loop
// calls it directly, and proves each call's outputs complete by their type (an instance of `host_types`),
// with no Python step between the call and the stop of the timer. A result of any other type goes through
// `wrap`, which returns the Python handle that waits on it and checks it.
struct host_call {
  nb::callable fn;
  nb::tuple host_types;
  nb::callable wrap;
};

// The event of a call that returned None, shared: nothing to hold, nothing to allocate per call.
const kbench::event_ptr& returned_nothing() {
  static const kbench::event_ptr event = std::make_shared<returned_event>(std::nullopt);
  return event;
}

// A bench_target whose call and barrier are Python callables: call() returns a handle, barrier() waits for
// the device (None: the core waits on every result instead). `call` may be a host_call (above).
kbench::bench_target make_target(std::string name, nb::object call, nb::object barrier) {
  kbench::bench_target target;
  target.name = std::move(name);
  if (nb::isinstance<host_call>(call)) {
    const host_call& host = nb::cast<const host_call&>(call);
    target.call = [fn = python_ref(host.fn), types = python_ref(host.host_types),
                   wrap = python_ref(host.wrap)]() {
      nb::gil_scoped_acquire gil;
      kbench::call_result result;
      nb::object outputs = fn.get()();
      if (outputs.is_none()) {
        result.events.push_back(returned_nothing());
      } else if (PyObject_IsInstance(outputs.ptr(), types.get().ptr()) == 1) {
        result.events.push_back(std::make_shared<returned_event>(python_ref(std::move(outputs))));
      } else {
        if (PyErr_Occurred() != nullptr) PyErr_Clear();
        result.events.push_back(std::make_shared<python_event>(wrap.get()(outputs)));
      }
      return result;
    };
  } else {
    target.call = [call = python_ref(std::move(call))]() {
      nb::gil_scoped_acquire gil;
      kbench::call_result result;
      result.events.push_back(std::make_shared<python_event>(call.get()()));
      return result;
    };
  }
  if (!barrier.is_none()) {
    target.barrier = [barrier = python_ref(std::move(barrier))]() {
      nb::gil_scoped_acquire gil;
      barrier.get()();
    };
  }
  return target;
}

nb::dict summary_dict(const kbench::summary& s) {
  nb::dict d;
  d["count"] = s.count;
  d["min"] = s.min;
  d["max"] = s.max;
  d["mean"] = s.mean;
  d["median"] = s.median;
  d["stdev"] = s.stdev;
  d["q1"] = s.q1;
  d["q3"] = s.q3;
  d["iqr"] = s.iqr;
  d["median_ci_low"] = s.median_ci_low;
  d["median_ci_high"] = s.median_ci_high;
  d["cv"] = s.cv;
  d["relative_spread"] = kbench::relative_spread(s);
  return d;
}

nb::dict bench_result_dict(const kbench::bench_result& r) {
  nb::dict d;
  d["name"] = r.name;
  d["samples_ms"] = r.samples_ms;
  d["stats"] = summary_dict(r.stats);
  d["sync_violations"] = r.sync_violations;
  d["stopped_by_noise"] = r.stopped_by_noise;
  return d;
}

/// What else ran while something was timed (kbench::contention), as a dict.
nb::dict contention_dict(const kbench::contention& c) {
  nb::dict d;
  d["quiet"] = c.quiet;
  d["measured"] = c.measured;
  d["reason"] = c.reason;
  d["detail"] = c.describe();
  d["others_fraction"] = c.others_fraction();
  d["steal_fraction"] = c.steal_fraction();
  d["wall_s"] = c.wall_s;
  d["cpus"] = c.cpus;
  d["involuntary_switches"] = c.involuntary_switches;
  return d;
}

nb::dict measure(std::string name, nb::object call, nb::object barrier, int repeat, double target_ms,
                 int warmup, int throughput_calls, int throughput_batches, bool flush_cache) {
  kbench::measure_options options;
  options.repeat = repeat;
  options.target_ms = target_ms;
  options.warmup = warmup;
  options.throughput_calls = throughput_calls;
  options.throughput_batches = throughput_batches;
  options.flush_cache = flush_cache;
  const kbench::bench_target target = make_target(std::move(name), std::move(call), std::move(barrier));
  kbench::measurement m;
  {
    nb::gil_scoped_release released;
    m = kbench::measure(target, options);
  }
  nb::dict d;
  d["name"] = m.name;
  d["wall_ms"] = m.wall_ms;
  d["throughput_ms"] = m.throughput_ms;
  d["device_ms"] = m.device_ms;
  d["wall"] = summary_dict(m.wall);
  d["throughput"] = summary_dict(m.throughput);
  d["device"] = summary_dict(m.device);
  d["calls_dispatched"] = m.calls_dispatched;
  d["calls_captured"] = m.calls_captured;
  d["result_sync_violations"] = m.result_sync_violations;
  d["barrier_violations"] = m.barrier_violations;
  d["warnings"] = m.warnings;
  d["valid"] = m.valid();
  d["machine"] = contention_dict(m.machine);
  return d;
}

nb::dict do_bench(std::string name, nb::object call, nb::object barrier, double warmup_ms, double rep_ms,
                  bool flush_cache, std::optional<std::tuple<std::size_t, double, double, double>> stop) {
  kbench::bench_options options;
  options.warmup_ms = warmup_ms;
  options.rep_ms = rep_ms;
  options.flush_cache = flush_cache;
  if (stop) {
    const auto [min_samples, max_relative_noise, min_time_ms, timeout_ms] = *stop;
    options.stop = kbench::noise_stop{min_samples, max_relative_noise, min_time_ms, timeout_ms};
  }
  const kbench::bench_target target = make_target(std::move(name), std::move(call), std::move(barrier));
  kbench::bench_result r;
  {
    nb::gil_scoped_release released;
    r = kbench::do_bench(target, options);
  }
  return bench_result_dict(r);
}

nb::list interleaved_bench(const std::vector<std::tuple<std::string, nb::object, nb::object>>& targets,
                           int repeat, int warmup, int calls_per_turn) {
  std::vector<kbench::bench_target> built;
  for (const auto& [name, call, barrier] : targets) built.push_back(make_target(name, call, barrier));
  std::vector<kbench::bench_result> results;
  {
    nb::gil_scoped_release released;
    results = kbench::interleaved_bench(built, repeat, warmup, calls_per_turn);
  }
  nb::list list;
  for (const auto& r : results) list.append(bench_result_dict(r));
  return list;
}

int compute_repeat(std::string name, nb::object call, nb::object barrier, double target_ms, int min_repeat,
                   int max_repeat) {
  const kbench::bench_target target = make_target(std::move(name), std::move(call), std::move(barrier));
  nb::gil_scoped_release released;
  return kbench::compute_repeat(target, target_ms, min_repeat, max_repeat);
}

std::vector<double> quantiles(const std::vector<double>& samples, const std::vector<double>& qs) {
  std::vector<double> result;
  for (const double q : qs) result.push_back(kbench::quantile(samples, q));
  return result;
}

nb::dict summarize(const std::vector<double>& samples) {
  return summary_dict(kbench::summarize(samples));
}

}  // namespace

void bind_bench(nb::module_& m) {
  nb::class_<host_call>(
      m, "HostCall",
      "A callable whose outputs are host values, timed with no Python step between the call "
      "and the stop (kbench.sync.Synchronizer.target).")
      .def(nb::init<nb::callable, nb::tuple, nb::callable>(), nb::arg("fn"), nb::arg("host_types"),
           nb::arg("wrap"));
  m.def("measure", &measure, nb::arg("name"), nb::arg("call"), nb::arg("barrier").none(), nb::arg("repeat"),
        nb::arg("target_ms"), nb::arg("warmup"), nb::arg("throughput_calls"), nb::arg("throughput_batches"),
        nb::arg("flush_cache"), "The three measures of one target (kbench::measure).");
  m.def("do_bench", &do_bench, nb::arg("name"), nb::arg("call"), nb::arg("barrier").none(),
        nb::arg("warmup_ms"), nb::arg("rep_ms"), nb::arg("flush_cache"), nb::arg("stop").none(),
        "Synchronized samples of one target (kbench::do_bench).");
  m.def("interleaved_bench", &interleaved_bench, nb::arg("targets"), nb::arg("repeat"), nb::arg("warmup"),
        nb::arg("calls_per_turn"), "Round-robin samples of several targets (kbench::interleaved_bench).");
  m.def("compute_repeat", &compute_repeat, nb::arg("name"), nb::arg("call"), nb::arg("barrier").none(),
        nb::arg("target_ms"), nb::arg("min_repeat"), nb::arg("max_repeat"),
        "Repeats that fill target_ms (kbench::compute_repeat).");
  m.def("quantiles", &quantiles, nb::arg("samples"), nb::arg("qs"),
        "Quantiles by linear interpolation (kbench::quantile).");
  m.def("interleaved_calls_per_turn", &kbench::interleaved_calls_per_turn, nb::arg("slowest_ms"),
        nb::arg("repeat"), "Timed calls per turn of interleaved_bench (kbench::interleaved_calls_per_turn).");
  m.def("summarize", &summarize, nb::arg("samples"), "Statistics of samples (kbench::summarize).");
  nb::class_<kbench::contention_probe>(
      m, "ContentionProbe", "What else runs on the machine from now on (kbench::contention_probe).")
      .def(nb::init<>())
      .def(
          "finish",
          [](const kbench::contention_probe& probe, double min_window_s) {
            kbench::contention c;
            {
              nb::gil_scoped_release released;  // it may sleep until the window is long enough to judge
              c = probe.finish(min_window_s);
            }
            return contention_dict(c);
          },
          nb::arg("min_window_s") = kbench::min_judged_window_s,
          "The window since construction, extended to min_window_s: quiet, reason, detail, fractions.");
  m.attr("max_quiet_others_fraction") = kbench::max_quiet_others_fraction;
}

}  // namespace kbench::python
