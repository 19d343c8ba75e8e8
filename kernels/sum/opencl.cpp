// sum on the opencl backend: kernels/sum/sum.cl built with the config as -D defines, one work-group per row.

#include <kbench/build_config.hpp>

#if KBENCH_HAS_OPENCL

#include <kbench/backends/opencl.hpp>
#include <kbench/error.hpp>

#include "../common/binding_checks.hpp"
#include "sum.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>

extern const char* const kbench_sum_opencl_source;  // sum.cl, embedded by kbench_add_kernel

namespace kbench::kernels {

namespace {

std::int64_t config_value(const config& values, const char* name, std::int64_t fallback) {
  const auto found = values.find(name);
  return found == values.end() ? fallback : found->second;
}

}  // namespace

launcher bind_sum_opencl(const kernel_args& args) {
  auto device = device_as<opencl::opencl_device>(args, "sum/opencl", "an opencl device");
  if (args.shape.size() != 2 || args.shape[0] <= 0 || args.shape[1] < 0) {
    KBENCH_THROW("sum/opencl: shape {} is not a non-empty [M, N]", to_string(args.shape));
  }
  if (args.inputs.size() != 1 || !args.inputs[0]) {
    KBENCH_THROW("sum/opencl takes 1 input, got {}", args.inputs.size());
  }
  const std::int64_t rows = args.shape[0];
  const std::int64_t cols = args.shape[1];
  const std::size_t bytes = static_cast<std::size_t>(rows * cols) * sizeof(float);
  if (args.inputs[0]->size_bytes() < bytes) {
    KBENCH_THROW("sum/opencl: input holds {} bytes, shape {} needs {}", args.inputs[0]->size_bytes(),
                 to_string(args.shape), bytes);
  }

  // Defaults fill in what the config leaves out, so that the build and the launch geometry agree.
  config defines = args.config;
  const std::int64_t wg = config_value(defines, "WG", 64);   // [work-items per group = per row]
  const std::int64_t vec = config_value(defines, "VEC", 4);  // [floats per load]
  defines["WG"] = wg;
  defines["VEC"] = vec;
  if (vec != 1 && vec != 2 && vec != 4 && vec != 8 && vec != 16) {
    KBENCH_THROW("sum/opencl: VEC must be 1, 2, 4, 8 or 16, got {}", vec);
  }
  const std::size_t max_wg = device->info().max_work_group_size;
  if (wg <= 0 || (wg & (wg - 1)) != 0 || (max_wg != 0 && static_cast<std::size_t>(wg) > max_wg)) {
    KBENCH_THROW("sum/opencl: WG={} must be a power of two that fits the device (1 to {} work-items)", wg,
                 max_wg);
  }

  opencl::opencl_kernel kernel =
      device->build_program(kbench_sum_opencl_source, defines).kernel("sum_kernel");
  buffer_ptr output = output_buffer(args, 0, static_cast<std::size_t>(rows) * sizeof(float));
  kernel.set_arg(0, args.inputs[0]);
  kernel.set_arg(1, output);
  kernel.set_arg_i64(2, cols);

  // One work-group per row.
  const auto group = static_cast<std::size_t>(wg);
  const std::array<std::size_t, 1> global{static_cast<std::size_t>(rows) * group};
  const std::array<std::size_t, 1> local{group};
  return [kernel, output, global, local]() mutable {
    event_ptr done = kernel.launch(global, local);
    return call_result{{std::move(done)}, {output}};
  };
}

}  // namespace kbench::kernels

#endif  // KBENCH_HAS_OPENCL
