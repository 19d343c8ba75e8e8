// swiglu on the opencl backend: kernels/swiglu/swiglu.cl built with the config as -D defines, a 2-D launch
// (vectors of a row x rows).

#include <kbench/build_config.hpp>

#if KBENCH_HAS_OPENCL

#include <kbench/backends/opencl.hpp>
#include <kbench/error.hpp>

#include "swiglu.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>

extern const char* const kbench_swiglu_opencl_source;  // swiglu.cl, embedded by kbench_add_kernel

namespace kbench::kernels {

namespace {

std::int64_t config_value(const config& values, const char* name, std::int64_t fallback) {
  const auto found = values.find(name);
  return found == values.end() ? fallback : found->second;
}

}  // namespace

launcher bind_swiglu_opencl(const kernel_args& args) {
  auto device = std::dynamic_pointer_cast<opencl::opencl_device>(args.device);
  if (!device) {
    KBENCH_THROW("swiglu/opencl needs an opencl device, got {}",
                 args.device ? std::string(to_string(args.device->info().backend)) : std::string("none"));
  }
  if (args.shape.size() != 2 || args.shape[0] <= 0 || args.shape[1] <= 0) {
    KBENCH_THROW("swiglu/opencl: shape {} is not a non-empty [M, N]", to_string(args.shape));
  }
  if (args.inputs.size() != 1 || !args.inputs[0]) {
    KBENCH_THROW("swiglu/opencl takes 1 input, got {}", args.inputs.size());
  }
  const std::int64_t rows = args.shape[0];
  const std::int64_t cols = args.shape[1];  // output columns N; an input row holds 2N
  const std::size_t out_bytes = static_cast<std::size_t>(rows * cols) * sizeof(float);
  if (args.inputs[0]->size_bytes() < 2 * out_bytes) {
    KBENCH_THROW("swiglu/opencl: input holds {} bytes, output shape {} needs {}",
                 args.inputs[0]->size_bytes(), to_string(args.shape), 2 * out_bytes);
  }

  // Defaults fill in what the config leaves out, so that the build and the launch geometry agree.
  config defines = args.config;
  const std::int64_t wg = config_value(defines, "WG", 64);   // [work-items per group, along a row]
  const std::int64_t vec = config_value(defines, "VEC", 4);  // [output elements per work-item]
  defines["WG"] = wg;
  defines["VEC"] = vec;
  if (vec != 1 && vec != 2 && vec != 4 && vec != 8 && vec != 16) {
    KBENCH_THROW("swiglu/opencl: VEC must be 1, 2, 4, 8 or 16, got {}", vec);
  }
  const std::size_t max_wg = device->info().max_work_group_size;
  if (wg <= 0 || (max_wg != 0 && static_cast<std::size_t>(wg) > max_wg)) {
    KBENCH_THROW("swiglu/opencl: WG={} does not fit the device (1 to {} work-items)", wg, max_wg);
  }

  opencl::opencl_kernel kernel =
      device->build_program(kbench_swiglu_opencl_source, defines).kernel("swiglu_kernel");
  buffer_ptr output = output_buffer(args, 0, out_bytes);
  kernel.set_arg(0, args.inputs[0]);
  kernel.set_arg(1, output);
  kernel.set_arg_i64(2, cols);

  // Dimension 0: one work-item per VEC outputs of a row, rounded up to whole work-groups; dimension 1: rows.
  const auto items = static_cast<std::size_t>((cols + vec - 1) / vec);
  const auto group = static_cast<std::size_t>(wg);
  const std::array<std::size_t, 2> global{(items + group - 1) / group * group,
                                          static_cast<std::size_t>(rows)};
  const std::array<std::size_t, 2> local{group, 1};
  return [kernel, output, global, local]() mutable {
    event_ptr done = kernel.launch(global, local);
    return call_result{{std::move(done)}, {output}};
  };
}

}  // namespace kbench::kernels

#endif  // KBENCH_HAS_OPENCL
