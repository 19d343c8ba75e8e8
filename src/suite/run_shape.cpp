#include <kbench/backends/registry.hpp>
#include <kbench/bench.hpp>
#include <kbench/contention.hpp>
#include <kbench/error.hpp>
#include <kbench/suite/accuracy.hpp>
#include <kbench/suite/bound_kernel.hpp>
#include <kbench/suite/reference.hpp>
#include <kbench/suite/run_shape.hpp>
#include <kbench/suite/triad_probe.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <memory>

namespace kbench::suite {

namespace {

/// A call slower than this [ms] switches the shape to the small fixed budget (3 samples, 1 throughput batch).
constexpr double slow_call_ms = 1000;
/// Why a phase failed becomes the shape's status; the first failure wins.
struct failure {
  shape_status status;
  std::string reason;
};

struct prepared {
  std::unique_ptr<bound_kernel> bound;
  impl_result result;
};

/// Input and output buffers in host memory that both implementations are bound to (kernel_args.cpp: a
/// cache-sized kernel's speed depends on where its buffers lie, so kbench and torch get the same ones).
struct shared_host_buffers {
  device_ptr cpu_device;  // kbench's device, which allocated them
  std::vector<buffer_ptr> inputs;
  std::vector<buffer_ptr> outputs;
};

/// The buffers to share when kbench runs on the cpu backend: the torch baseline's device is host memory
/// too. Empty (no sharing) for a device backend, or when they cannot be allocated (each binding then
/// allocates its own and reports what failed).
std::optional<shared_host_buffers> share_host_buffers(const shape_options& options,
                                                      const std::vector<host_tensor>& inputs,
                                                      const std::vector<host_tensor>& expected) {
  if (options.backend != backend_kind::cpu || !options.run_kbench || !options.run_torch) return std::nullopt;
  try {
    device_ptr cpu_device = open_device(backend_kind::cpu);
    std::vector<buffer_ptr> device_inputs = upload_inputs(*cpu_device, inputs);
    std::vector<buffer_ptr> device_outputs = allocate_outputs(*cpu_device, expected);
    return shared_host_buffers{std::move(cpu_device), std::move(device_inputs), std::move(device_outputs)};
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

/// Binds and checks one implementation. Returns nullopt-like (bound == nullptr) with `failed` set on failure.
prepared prepare(const kernel_definition& kernel, const implementation& impl, const std::string& label,
                 const config& chosen, const shape& s, const std::vector<host_tensor>& inputs,
                 const std::vector<host_tensor>& expected, const tolerance& tol,
                 const std::optional<shared_host_buffers>& shared, std::optional<failure>& failed) {
  prepared p;
  p.result.impl = label;
  p.result.baseline_form = impl.baseline_form;
  device_ptr device;
  try {
    device = shared && impl.backend == backend_kind::cpu ? shared->cpu_device : open_device(impl.backend);
    p.result.device = device->info();
    if (shared) {
      // Written again before each binding: the implementation checked before may have written into them.
      rewrite_inputs(shared->inputs, inputs);
      p.bound =
          std::make_unique<bound_kernel>(kernel, impl, device, s, shared->inputs, chosen, shared->outputs);
    } else {
      p.bound = std::make_unique<bound_kernel>(kernel, impl, device, s, inputs, chosen);
    }
    p.result.config = to_json_text(p.bound->used_config());
  } catch (const std::exception& e) {
    if (!failed) failed = failure{shape_status::build_error, fmt::format("{}: {}", label, e.what())};
    p.bound.reset();
    return p;
  }
  try {
    const accuracy_report report = check_accuracy(p.bound->run_and_read(expected), expected, tol);
    p.result.accurate = report.passed;
    p.result.max_abs_error = report.max_abs_error;
    p.result.max_rel_error = report.max_rel_error;
    p.result.mismatches = report.mismatches;
    if (!report.passed) {
      if (!failed) failed = failure{shape_status::wrong_result, fmt::format("{}: {}", label, report.message)};
      p.bound.reset();
    }
  } catch (const std::exception& e) {
    if (!failed) failed = failure{shape_status::runtime_error, fmt::format("{}: {}", label, e.what())};
    p.bound.reset();
  }
  return p;
}

void record_measurement(impl_result& r, const measurement& m) {
  r.throughput_ms = m.throughput_ms;
  r.device_ms = m.device_ms;
  r.captured = m.calls_captured;
  r.dispatched = m.calls_dispatched;
  r.sync_violations = m.sync_violations();
  r.valid = m.valid();
  r.warnings = m.warnings;
}

}  // namespace

shape_result run_shape(const kernel_definition& kernel, std::size_t shape_index,
                       const shape_options& options) {
  const auto started = std::chrono::steady_clock::now();
  shape_result result;
  result.kernel = kernel.name;
  result.shape_index = shape_index;
  if (shape_index >= kernel.shapes.size()) {
    KBENCH_THROW("shape index {} out of range for kernel '{}' ({} shapes)", shape_index, kernel.name,
                 kernel.shapes.size());
  }
  const shape& s = kernel.shapes[shape_index];
  result.shape = kbench::to_string(s);
  if (kernel.bytes_moved) result.bytes_moved = kernel.bytes_moved(s);
  if (kernel.flops) result.flops = kernel.flops(s);
  auto finish = [&]() -> shape_result {
    result.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return result;
  };

  const implementation* kbench_impl = kernel.find(options.backend);
  const implementation* torch_impl = kernel.find(backend_kind::torch);
  if (options.run_kbench && kbench_impl == nullptr) {
    result.status = shape_status::unavailable;
    result.reason =
        fmt::format("kernel '{}' has no {} implementation", kernel.name, kbench::to_string(options.backend));
    return finish();
  }
  if (options.run_torch && torch_impl == nullptr && !options.run_kbench) {
    result.status = shape_status::unavailable;
    result.reason = fmt::format("kernel '{}' has no torch baseline", kernel.name);
    return finish();
  }

  tolerance tol = kernel.tolerance;
  if (options.atol) tol.atol = *options.atol;
  if (options.rtol) tol.rtol = *options.rtol;
  const auto inputs = kernel.make_inputs(s, options.seed);
  const auto expected = reference_outputs(kernel, s, inputs);

  std::optional<failure> failed;
  std::vector<prepared> impls;
  const std::optional<shared_host_buffers> shared = share_host_buffers(options, inputs, expected);
  if (options.run_kbench)
    impls.push_back(prepare(kernel, *kbench_impl, "kbench", options.config.value_or(config{}), s, inputs,
                            expected, tol, shared, failed));
  // A kernel without a baseline (one from a spec file) runs kbench alone beside the kernels that have one.
  if (options.run_torch && torch_impl != nullptr)
    impls.push_back(prepare(kernel, *torch_impl, "torch", options.torch_config.value_or(config{}), s, inputs,
                            expected, tol, shared, failed));

  // Time what was built and checked: the three measures each, then interleaved at one repeat count.
  std::vector<bench_target> targets;
  std::vector<impl_result*> timed;
  if (options.require_quiet_s > 0 && !failed) {
    const contention waited = wait_for_quiet(options.require_quiet_s);
    if (!waited.quiet) {
      failed =
          failure{shape_status::invalid_timing,
                  fmt::format("the machine was still busy after waiting {:g} s for it (--require-quiet): {}",
                              options.require_quiet_s, waited.reason)};
      for (prepared& p : impls) p.bound.reset();  // nothing is timed
    }
  }
  const contention_probe machine;  // over the three measures and the interleaved turns
  // The kbench device's clocks at both ends (a GPU's driver may slow it down for heat: contention.hpp).
  const device_ptr kbench_device =
      !impls.empty() && impls.front().bound && impls.front().result.impl == "kbench"
          ? impls.front().bound->device()
          : nullptr;
  const device_clocks clocks_before = kbench_device ? kbench_device->clocks() : device_clocks{};
  try {
    // Slow calls (bmm at 1024 on 2 cores takes seconds) get a smaller, fixed sample budget, so that one shape
    // stays within minutes: one synchronized call estimates the cost first.
    int slow_repeat = 0;    // 0 = the normal budgets (compute_repeat fills target_ms)
    double slowest_ms = 0;  // [ms] the slowest median wall latency of the measures below
    for (prepared& p : impls) {
      if (!p.bound) continue;
      int early = 0;
      if (time_one_call(p.bound->target(), early) > slow_call_ms) slow_repeat = 3;
    }
    for (prepared& p : impls) {
      if (!p.bound) continue;
      measure_options mo;
      mo.target_ms = options.target_ms;
      mo.min_machine_window_s = 0;  // the shape's own window below judges the machine
      if (slow_repeat > 0) {
        mo.repeat = slow_repeat;
        mo.warmup = 0;  // the accuracy check and the estimate above already ran it twice
        mo.throughput_batches = 1;
      }
      const measurement m = measure(p.bound->target(), mo);
      record_measurement(p.result, m);
      slowest_ms = std::max(slowest_ms, m.wall.median);
      if (!p.result.valid && !failed) {
        failed = failure{shape_status::invalid_timing,
                         fmt::format("{}: {}", p.result.impl, fmt::join(p.result.warnings, "; "))};
      }
      targets.push_back(p.bound->target());
      timed.push_back(&p.result);
    }
    if (!targets.empty()) {
      int repeat = slow_repeat;
      if (repeat == 0) {
        repeat = 1000;
        for (const auto& t : targets) repeat = std::min(repeat, compute_repeat(t, options.target_ms));
      }
      // Turns of several calls, each after an untimed one (bench.hpp: the first call after a switch from
      // torch can wait a scheduler slice on the cpu backend), sized from the slowest median latency
      // measured above; slow shapes keep one call per turn.
      const int per_turn = interleaved_calls_per_turn(slowest_ms, repeat);
      // A large shape's turns also time a triad on the kbench device: the bandwidth of the same moments
      // (triad_probe.hpp). It does not change the repeat count or the turns of the implementations; it
      // only adds its own turn after theirs. A compute-bound shape gets none: its share of the memory's
      // bandwidth says nothing about it.
      std::optional<triad_probe> probe;
      if (options.triad_stores && !result.compute_bound() &&
          result.bytes_moved >= triad_probe_min_bytes(options.triad_min_bytes) && !impls.empty() &&
          impls.front().bound && impls.front().result.impl == "kbench") {
        try {
          probe =
              make_triad_probe(impls.front().bound->device(), *options.triad_stores, options.triad_elements);
          targets.push_back(probe->target);
        } catch (const std::exception& e) {  // e.g. no memory left for its arrays: the shape goes on without
          impls.front().result.warnings.push_back(fmt::format("no triad beside this shape: {}", e.what()));
        }
      }
      const auto samples = interleaved_bench(targets, repeat, /*warmup=*/slow_repeat > 0 ? 0 : 2,
                                             /*calls_per_turn=*/slow_repeat > 0 ? 1 : per_turn);
      if (probe) {
        const bench_result& triad = samples.back();
        if (triad.sync_violations == 0) {
          result.triad = triad_turns{triad.samples_ms, probe->bytes_per_call, probe->stores};
        } else {  // not a bandwidth; the implementations' own checks below say whether theirs are
          impls.front().result.warnings.push_back(
              fmt::format("triad beside this shape dropped: {} waits returned before it finished",
                          triad.sync_violations));
        }
      }
      for (std::size_t i = 0; i < timed.size(); ++i) {
        timed[i]->latency_ms = samples[i].samples_ms;
        if (samples[i].sync_violations > 0 && !failed) {
          failed = failure{shape_status::invalid_timing,
                           fmt::format("{}: {} waits returned before the work finished", timed[i]->impl,
                                       samples[i].sync_violations)};
        }
      }
    }
  } catch (const std::exception& e) {
    if (!failed) failed = failure{shape_status::runtime_error, e.what()};
  }
  if (!targets.empty()) {
    result.machine = machine.finish(min_judged_window_s);
    if (kbench_device) add_device_clocks(*result.machine, clocks_before, kbench_device->clocks());
    if (options.require_quiet_s > 0 && !result.machine->quiet && !failed) {
      failed = failure{shape_status::invalid_timing,
                       fmt::format("the machine was busy while the shape was timed (--require-quiet): {}",
                                   result.machine->reason)};
    }
  }

  for (prepared& p : impls) {
    (p.result.impl == "kbench" ? result.kbench : result.torch) = std::move(p.result);
  }
  if (failed) {
    result.status = failed->status;
    result.reason = failed->reason;
  }
  return finish();
}

}  // namespace kbench::suite
