#pragma once
// The cuda host side shared by the row kernels whose output has the input's shape (welford, layer_norm,
// rms_norm, softmax_two_pass, batch_softmax): one block of BLOCK threads per row, the kernel called as
// entry(x, per-row inputs..., y, cols). Not a kernel folder: it has no CMakeLists.txt; kernels include it by
// relative path, inside their #if KBENCH_HAS_CUDA.

#include <kbench/backends/cuda.hpp>
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
[[nodiscard]] inline launcher bind_rows_cuda(const kernel_args& args, const row_kernel& k) {
  auto device = device_as<cuda::cuda_device>(args, fmt::format("{}/cuda", k.name), "a cuda device");
  const auto [rows, cols, bytes] = check_row_arguments(args, fmt::format("{}/cuda", k.name), k.row_inputs);
  if (rows > 0x7fffffff) KBENCH_THROW("{}/cuda: {} rows exceed the grid's x limit", k.name, rows);

  // A missing BLOCK takes the .cu default, passed explicitly so the build is fully determined.
  config defines = args.config;
  const std::int64_t block = defines.try_emplace("BLOCK", 256).first->second;  // [threads per block]
  const auto max_block = static_cast<std::int64_t>(device->info().max_work_group_size);
  if (block < 32 || block % 32 != 0 || block > max_block) {
    KBENCH_THROW("{}/cuda: BLOCK must be a multiple of 32 from 32 to {}, got {}", k.name, max_block, block);
  }

  cuda::cuda_module module = device->build_module(k.source, defines);
  cuda::cuda_function function = module.function(k.entry);
  buffer_ptr output = output_buffer(args, 0, bytes);
  unsigned arg = 0;
  for (const buffer_ptr& input : args.inputs) function.set_arg(arg++, input);
  function.set_arg(arg++, output);
  function.set_arg_i64(arg, cols);

  const std::array<unsigned, 3> grid{static_cast<unsigned>(rows), 1, 1};  // one block per row
  const std::array<unsigned, 3> threads{static_cast<unsigned>(block), 1, 1};
  return [function, output, grid, threads]() mutable {
    return call_result{{function.launch(grid, threads)}, {output}};
  };
}

}  // namespace kbench::kernels
