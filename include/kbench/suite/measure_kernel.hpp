#pragma once
// `kbench measure`: every implementation of one kernel at one shape, checked against the torch reference and
// timed with the three measures. A failing implementation is recorded with its status; the others go on.

#include <kbench/fault_injection.hpp>
#include <kbench/measure.hpp>
#include <kbench/suite/accuracy.hpp>
#include <kbench/suite/kernel.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace kbench::suite {

enum class impl_status { ok, unavailable, build_error, runtime_error, wrong_result, invalid_timing };
[[nodiscard]] std::string_view to_string(impl_status status);

struct implementation_measurement {
  backend_kind backend = backend_kind::cpu;
  device_info device;
  config used_config;
  impl_status status = impl_status::ok;
  std::string error;  // what went wrong, for every status but ok
  accuracy_report accuracy;
  std::optional<measurement> timing;
};

struct measure_kernel_options {
  std::vector<backend_kind> backends;  // empty = every backend the kernel implements and this machine has
  std::uint64_t seed = 0;
  measure_options timing;
  sync_fault fault = sync_fault::none;
  std::optional<kbench::config>
      config_override;  // overrides the default config of every implementation but torch
  std::function<void(const std::string&)> progress;  // optional: told what is being done
};

[[nodiscard]] std::vector<implementation_measurement> measure_kernel(const kernel_definition& kernel,
                                                                     const shape& s,
                                                                     const measure_kernel_options& options);

}  // namespace kbench::suite
