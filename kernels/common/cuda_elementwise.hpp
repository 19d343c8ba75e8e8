#pragma once
// The cuda host side shared by the elementwise kernels (add, exp, low_mem_dropout, geglu, swiglu): the
// config as defines with BLOCK and VEC filled in and checked, the kernel called as entry(inputs..., y,
// scalars...), one thread per VEC elements of each row, in as many blocks as that takes (the grid's x
// dimension is capped and the kernels' stride loops cover the rest). Not a kernel folder: it has no
// CMakeLists.txt; kernels include it by relative path, inside their #if KBENCH_HAS_CUDA.

#include <kbench/backends/cuda.hpp>
#include <kbench/error.hpp>
#include <kbench/suite/kernel.hpp>

#include "binding_checks.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kbench::kernels {

/// Which elementwise kernel, its operands and its launch.
struct cuda_elementwise {
  std::string_view name;                 // the kernel's name, for messages (e.g. "add")
  const char* source = nullptr;          // the embedded .cu source
  const char* entry = nullptr;           // the kernel function in it
  std::vector<std::size_t> input_bytes;  // [bytes] each input must hold, in order
  std::size_t output_bytes = 0;          // [bytes] of the one output
  std::vector<std::int64_t> scalars;     // arguments after the output (long long)
  std::int64_t row_elements = 0;         // elements per row, VEC per thread
  std::int64_t rows = 1;                 // rows, each row_elements long
};

/// Binds `k` with args.config; throws on a wrong device, input or config.
[[nodiscard]] inline launcher bind_elementwise_cuda(const kernel_args& args, const cuda_elementwise& k) {
  const std::string where = fmt::format("{}/cuda", k.name);
  auto device = device_as<cuda::cuda_device>(args, where, "a cuda device");
  check_inputs(args, where, k.input_bytes);

  // Missing parameters take the .cu defaults, passed explicitly so the build is fully determined.
  config defines = args.config;
  const std::int64_t block = defines.try_emplace("BLOCK", 256).first->second;  // [threads per block]
  const std::int64_t vec = defines.try_emplace("VEC", 4).first->second;        // [elements per thread]
  if (vec != 1 && vec != 2 && vec != 4) KBENCH_THROW("{}: VEC must be 1, 2 or 4, got {}", where, vec);
  const auto max_block = static_cast<std::int64_t>(device->info().max_work_group_size);
  if (block < 1 || block > max_block) {
    KBENCH_THROW("{}: BLOCK must be in [1, {}] on {}, got {}", where, max_block, device->info().name, block);
  }

  cuda::cuda_module module = device->build_module(k.source, defines);
  cuda::cuda_function function = module.function(k.entry);
  buffer_ptr output = output_buffer(args, 0, k.output_bytes);
  unsigned arg = 0;
  for (const buffer_ptr& input : args.inputs) function.set_arg(arg++, input);
  function.set_arg(arg++, output);
  for (const std::int64_t scalar : k.scalars) function.set_arg_i64(arg++, scalar);

  // At least one block, so that an empty shape still makes a (no-op) launch with an event.
  const std::int64_t threads_needed = k.rows * ((k.row_elements + vec - 1) / vec);
  const std::int64_t blocks = std::clamp<std::int64_t>((threads_needed + block - 1) / block, 1, 0x7fffffff);
  const std::array<unsigned, 3> grid{static_cast<unsigned>(blocks), 1, 1};
  const std::array<unsigned, 3> threads{static_cast<unsigned>(block), 1, 1};
  return [function, output, grid, threads]() mutable {
    return call_result{{function.launch(grid, threads)}, {output}};
  };
}

/// Binds a gated linear unit (geglu, swiglu: kernels/common/gated_rows.cu after the kernel's gate) called
/// `name` for out [M, N] from x [M, 2N].
[[nodiscard]] inline launcher bind_gated_rows_cuda(const kernel_args& args, std::string_view name,
                                                   const char* source) {
  const auto [rows, cols] = matrix_shape(args, fmt::format("{}/cuda", name));  // an input row holds 2N
  return bind_elementwise_cuda(args, {.name = name,
                                      .source = source,
                                      .entry = "gated_rows_f32",
                                      .input_bytes = {float_bytes(2 * rows * cols)},
                                      .output_bytes = float_bytes(rows * cols),
                                      .scalars = {rows, cols},
                                      .row_elements = cols,
                                      .rows = rows});
}

}  // namespace kbench::kernels
