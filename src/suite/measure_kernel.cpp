#include <kbench/backends/registry.hpp>
#include <kbench/suite/bound_kernel.hpp>
#include <kbench/suite/measure_kernel.hpp>
#include <kbench/suite/reference.hpp>

#include <fmt/format.h>

#include <algorithm>

namespace kbench::suite {

std::string_view to_string(impl_status status) {
  switch (status) {
    case impl_status::ok:
      return "ok";
    case impl_status::unavailable:
      return "unavailable";
    case impl_status::build_error:
      return "build error";
    case impl_status::runtime_error:
      return "runtime error";
    case impl_status::wrong_result:
      return "wrong result";
    case impl_status::invalid_timing:
      return "invalid timing";
  }
  return "unknown";
}

namespace {

/// The backends to run, in the kernel's implementation order, torch first (the baseline).
std::vector<backend_kind> backends_to_run(const kernel_definition& kernel,
                                          const measure_kernel_options& options) {
  std::vector<backend_kind> chosen;
  for (backend_kind kind :
       {backend_kind::torch, backend_kind::cpu, backend_kind::opencl, backend_kind::cuda}) {
    if (kernel.find(kind) == nullptr) continue;
    if (!options.backends.empty() &&
        std::find(options.backends.begin(), options.backends.end(), kind) == options.backends.end()) {
      continue;
    }
    chosen.push_back(kind);
  }
  return chosen;
}

}  // namespace

std::vector<implementation_measurement> measure_kernel(const kernel_definition& kernel, const shape& s,
                                                       const measure_kernel_options& options) {
  auto tell = [&](const std::string& what) {
    if (options.progress) options.progress(what);
  };
  tell(fmt::format("{} {}: making inputs and the reference ({})", kernel.name, kbench::to_string(s),
                   reference_name(kernel)));
  const std::vector<host_tensor> inputs = kernel.make_inputs(s, options.seed);
  const std::vector<host_tensor> expected = reference_outputs(kernel, s, inputs);

  const auto statuses = probe_backends();
  std::vector<implementation_measurement> results;
  for (backend_kind kind : backends_to_run(kernel, options)) {
    implementation_measurement m;
    m.backend = kind;
    const auto status =
        std::find_if(statuses.begin(), statuses.end(), [&](const auto& st) { return st.kind == kind; });
    if (status == statuses.end() || !status->available) {
      m.status = impl_status::unavailable;
      m.error = status == statuses.end() ? "unknown backend" : status->reason;
      results.push_back(std::move(m));
      continue;
    }
    m.device = status->devices.front();
    const implementation& impl = *kernel.find(kind);
    impl_status failure = impl_status::build_error;  // what an exception means in the current phase
    try {
      tell(fmt::format("{} {} on {}: building", kernel.name, kbench::to_string(s), to_string(kind)));
      const bool override_config = options.config_override && kind != backend_kind::torch;
      const bound_kernel bound(kernel, impl, open_device(kind), s, inputs,
                               override_config ? *options.config_override : config{});
      m.used_config = bound.used_config();
      m.device = bound.device()->info();
      failure = impl_status::runtime_error;
      tell(fmt::format("{} {} on {}: checking against {}", kernel.name, kbench::to_string(s), to_string(kind),
                       reference_name(kernel)));
      m.accuracy = check_accuracy(bound.run_and_read(expected), expected, kernel.tolerance);
      if (!m.accuracy.passed) {
        m.status = impl_status::wrong_result;
        m.error = m.accuracy.message;
        results.push_back(std::move(m));
        continue;
      }
      tell(fmt::format("{} {} on {}: timing", kernel.name, kbench::to_string(s), to_string(kind)));
      m.timing = measure(inject_sync_fault(bound.target(), options.fault), options.timing);
      if (!m.timing->valid()) {
        m.status = impl_status::invalid_timing;
        m.error = fmt::format("{}", fmt::join(m.timing->warnings, "; "));
      }
    } catch (const std::exception& e) {
      m.status = failure;
      m.error = e.what();
    }
    results.push_back(std::move(m));
  }
  return results;
}

}  // namespace kbench::suite
