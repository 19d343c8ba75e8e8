// layer_norm on the opencl backend: layer_norm.cl built with the config as -D defines, one work-group per
// row.

#include <kbench/build_config.hpp>

#if KBENCH_HAS_OPENCL

#include <kbench/backends/opencl.hpp>
#include <kbench/error.hpp>

#include "layer_norm.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>

extern const char* const kbench_layer_norm_opencl_source;  // layer_norm.cl, embedded by kbench_add_kernel

namespace kbench::kernels {

launcher bind_layer_norm_opencl(const kernel_args& args) {
  auto device = std::dynamic_pointer_cast<opencl::opencl_device>(args.device);
  if (!device) {
    KBENCH_THROW("layer_norm/opencl needs an opencl device, got {}",
                 args.device ? std::string(to_string(args.device->info().backend)) : std::string("none"));
  }
  if (args.shape.size() != 2 || args.shape[0] <= 0 || args.shape[1] <= 0) {
    KBENCH_THROW("layer_norm/opencl: shape must be [M, N] with M, N > 0, got {}", to_string(args.shape));
  }
  if (args.inputs.size() != 3 || !args.inputs[0] || !args.inputs[1] || !args.inputs[2]) {
    KBENCH_THROW("layer_norm/opencl takes 3 inputs (x, w, b), got {}", args.inputs.size());
  }
  const std::int64_t rows = args.shape[0];
  const std::int64_t cols = args.shape[1];
  const std::size_t bytes = static_cast<std::size_t>(rows * cols) * sizeof(float);
  const std::size_t row_bytes = static_cast<std::size_t>(cols) * sizeof(float);
  if (args.inputs[0]->size_bytes() < bytes || args.inputs[1]->size_bytes() < row_bytes ||
      args.inputs[2]->size_bytes() < row_bytes) {
    KBENCH_THROW("layer_norm/opencl: inputs too small for shape {}", to_string(args.shape));
  }

  // Defaults fill in a missing WG or VEC, so that the build and the launch geometry agree.
  config defines = args.config;
  const std::int64_t wg = defines.try_emplace("WG", 256).first->second;  // [work-items per group]
  const std::int64_t vec = defines.try_emplace("VEC", 1).first->second;  // [floats per load]
  if (vec != 1 && vec != 2 && vec != 4 && vec != 8) {
    KBENCH_THROW("layer_norm/opencl: VEC must be 1, 2, 4 or 8, got {}", vec);
  }
  const std::size_t max_wg = device->info().max_work_group_size;
  if (wg <= 0 || (wg & (wg - 1)) != 0 || (max_wg != 0 && static_cast<std::size_t>(wg) > max_wg)) {
    KBENCH_THROW("layer_norm/opencl: WG={} must be a power of two from 1 to {}", wg, max_wg);
  }

  opencl::opencl_kernel kernel =
      device->build_program(kbench_layer_norm_opencl_source, defines).kernel("layer_norm");
  buffer_ptr output = device->allocate(bytes);
  kernel.set_arg(0, args.inputs[0]);
  kernel.set_arg(1, args.inputs[1]);
  kernel.set_arg(2, args.inputs[2]);
  kernel.set_arg(3, output);
  kernel.set_arg_i64(4, cols);

  const auto group = static_cast<std::size_t>(wg);
  const std::array<std::size_t, 1> global{static_cast<std::size_t>(rows) * group};  // one group per row
  const std::array<std::size_t, 1> local{group};
  return [kernel, output, global, local]() mutable {
    event_ptr done = kernel.launch(global, local);
    return call_result{{std::move(done)}, {output}};
  };
}

}  // namespace kbench::kernels

#endif  // KBENCH_HAS_OPENCL
