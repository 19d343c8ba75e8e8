#pragma once
// The opencl host side shared by the row kernels whose output has the input's shape (welford, layer_norm,
// rms_norm, softmax_two_pass, batch_softmax): one work-group of WG work-items per row, VEC floats per load,
// the kernel called as entry(x, per-row inputs..., y, cols). Not a kernel folder: it has no CMakeLists.txt;
// kernels include it by relative path, inside their #if KBENCH_HAS_OPENCL.

#include <kbench/backends/opencl.hpp>
#include <kbench/error.hpp>
#include <kbench/suite/kernel.hpp>

#include "binding_checks.hpp"
#include "row_arguments.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace kbench::kernels {

/// Binds `k` for args.shape = [..., N]: x and y hold every row (the leading dimensions flattened), the
/// further inputs one row of N floats each. Throws on a wrong device, shape, input or config.
[[nodiscard]] inline launcher bind_rows_opencl(const kernel_args& args, const row_kernel& k) {
  auto device = device_as<opencl::opencl_device>(args, fmt::format("{}/opencl", k.name), "an opencl device");
  const auto [rows, cols, bytes] = check_row_arguments(args, fmt::format("{}/opencl", k.name), k.row_inputs);

  // Defaults fill in a missing WG or VEC, so that the build and the launch geometry agree.
  config defines = args.config;
  const std::int64_t wg = defines.try_emplace("WG", 256).first->second;  // [work-items per group]
  const std::int64_t vec = defines.try_emplace("VEC", 1).first->second;  // [floats per load]
  if (vec != 1 && vec != 2 && vec != 4 && vec != 8) {
    KBENCH_THROW("{}/opencl: VEC must be 1, 2, 4 or 8, got {}", k.name, vec);
  }
  const std::size_t max_wg = device->info().max_work_group_size;
  if (wg <= 0 || (wg & (wg - 1)) != 0 || (max_wg != 0 && static_cast<std::size_t>(wg) > max_wg)) {
    KBENCH_THROW("{}/opencl: WG={} must be a power of two from 1 to {}", k.name, wg, max_wg);
  }

  opencl::opencl_kernel kernel = device->build_program(k.source, defines).kernel(k.entry);
  buffer_ptr output = output_buffer(args, 0, bytes);
  unsigned arg = 0;
  for (const buffer_ptr& input : args.inputs) kernel.set_arg(arg++, input);
  kernel.set_arg(arg++, output);
  kernel.set_arg_i64(arg, cols);

  const auto group = static_cast<std::size_t>(wg);
  const std::array<std::size_t, 1> global{static_cast<std::size_t>(rows) * group};  // one group per row
  const std::array<std::size_t, 1> local{group};
  return [kernel, output, global, local]() mutable {
    event_ptr done = kernel.launch(global, local);
    return call_result{{std::move(done)}, {output}};
  };
}

}  // namespace kbench::kernels
