// low_mem_dropout on the opencl backend: kernels/low_mem_dropout/low_mem_dropout.cl built with the config as
// -D defines.

#include <kbench/build_config.hpp>

#if KBENCH_HAS_OPENCL

#include <kbench/backends/opencl.hpp>
#include <kbench/error.hpp>

#include "low_mem_dropout.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>

extern const char* const kbench_low_mem_dropout_opencl_source;  // embedded by kbench_add_kernel

namespace kbench::kernels {

namespace {

std::int64_t config_value(const config& values, const char* name, std::int64_t fallback) {
  const auto found = values.find(name);
  return found == values.end() ? fallback : found->second;
}

}  // namespace

launcher bind_low_mem_dropout_opencl(const kernel_args& args) {
  auto device = std::dynamic_pointer_cast<opencl::opencl_device>(args.device);
  if (!device) {
    KBENCH_THROW("low_mem_dropout/opencl needs an opencl device, got {}",
                 args.device ? std::string(to_string(args.device->info().backend)) : std::string("none"));
  }
  const std::int64_t n = element_count(args.shape);  // [elements]
  if (n <= 0) KBENCH_THROW("low_mem_dropout/opencl: shape {} has no elements", to_string(args.shape));
  if (n > std::int64_t{1} << 32) {
    KBENCH_THROW("low_mem_dropout/opencl: {} elements do not fit a uint32 index", n);
  }
  if (args.inputs.size() != 2 || !args.inputs[0] || !args.inputs[1]) {
    KBENCH_THROW("low_mem_dropout/opencl takes 2 inputs (x, seed), got {}", args.inputs.size());
  }
  const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(float);
  if (args.inputs[0]->size_bytes() < bytes || args.inputs[1]->size_bytes() < sizeof(float)) {
    KBENCH_THROW("low_mem_dropout/opencl: inputs hold {} and {} bytes, shape {} needs {} and {}",
                 args.inputs[0]->size_bytes(), args.inputs[1]->size_bytes(), to_string(args.shape), bytes,
                 sizeof(float));
  }

  // Defaults fill in what the config leaves out, so that the build and the launch geometry agree.
  config defines = args.config;
  const std::int64_t wg = config_value(defines, "WG", 256);  // [work-items per group]
  const std::int64_t vec = config_value(defines, "VEC", 4);  // [elements per work-item]
  defines["WG"] = wg;
  defines["VEC"] = vec;
  if (vec != 1 && vec != 2 && vec != 4 && vec != 8 && vec != 16) {
    KBENCH_THROW("low_mem_dropout/opencl: VEC must be 1, 2, 4, 8 or 16, got {}", vec);
  }
  const std::size_t max_wg = device->info().max_work_group_size;
  if (wg <= 0 || (max_wg != 0 && static_cast<std::size_t>(wg) > max_wg)) {
    KBENCH_THROW("low_mem_dropout/opencl: WG={} does not fit the device (1 to {} work-items)", wg, max_wg);
  }

  opencl::opencl_kernel kernel =
      device->build_program(kbench_low_mem_dropout_opencl_source, defines).kernel("low_mem_dropout_kernel");
  buffer_ptr output = output_buffer(args, 0, bytes);
  kernel.set_arg(0, args.inputs[0]);
  kernel.set_arg(1, args.inputs[1]);
  kernel.set_arg(2, output);
  kernel.set_arg_i64(3, n);

  // One work-item per VEC elements, rounded up to whole work-groups.
  const auto items = static_cast<std::size_t>((n + vec - 1) / vec);
  const auto group = static_cast<std::size_t>(wg);
  const std::array<std::size_t, 1> global{(items + group - 1) / group * group};
  const std::array<std::size_t, 1> local{group};
  return [kernel, output, global, local]() mutable {
    event_ptr done = kernel.launch(global, local);
    return call_result{{std::move(done)}, {output}};
  };
}

}  // namespace kbench::kernels

#endif  // KBENCH_HAS_OPENCL
