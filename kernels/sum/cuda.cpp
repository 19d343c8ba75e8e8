// sum on the cuda backend: sum.cu compiled by NVRTC with the config as defines, one block per row.

#include <kbench/build_config.hpp>

#if KBENCH_HAS_CUDA

#include <kbench/backends/cuda.hpp>
#include <kbench/error.hpp>

#include "../common/binding_checks.hpp"
#include "sum.hpp"

#include <algorithm>
#include <array>
#include <cstdint>

extern const char* const kbench_sum_cuda_source;  // sum.cu, embedded by kbench_add_kernel

namespace kbench::kernels {

launcher bind_sum_cuda(const kernel_args& args) {
  auto device = device_as<cuda::cuda_device>(args, "sum/cuda", "a cuda device");
  if (args.shape.size() != 2) KBENCH_THROW("sum/cuda: shape {} is not [M, N]", to_string(args.shape));
  if (args.inputs.size() != 1) KBENCH_THROW("sum/cuda takes 1 input, got {}", args.inputs.size());
  const std::int64_t rows = args.shape[0];
  const std::int64_t cols = args.shape[1];
  const auto bytes = static_cast<std::size_t>(rows * cols) * sizeof(float);
  if (args.inputs[0]->size_bytes() < bytes) {
    KBENCH_THROW("sum/cuda: input holds {} bytes, shape {} needs {}", args.inputs[0]->size_bytes(),
                 to_string(args.shape), bytes);
  }

  // Missing parameters take sum.cu's defaults; they are passed explicitly so the build is fully determined.
  config defines = args.config;
  const std::int64_t block =
      defines.try_emplace("BLOCK", 256).first->second;  // [threads per block = per row]
  const auto max_block =
      std::min<std::int64_t>(1024, static_cast<std::int64_t>(device->info().max_work_group_size));
  if (block < 32 || block > max_block || block % 32 != 0) {
    KBENCH_THROW("sum/cuda: BLOCK must be a multiple of 32 in [32, {}] on {}, got {}", max_block,
                 device->info().name, block);
  }

  cuda::cuda_module module = device->build_module(kbench_sum_cuda_source, defines);
  cuda::cuda_function function = module.function("sum_rows_f32");
  buffer_ptr output = output_buffer(args, 0, static_cast<std::size_t>(rows) * sizeof(float));
  function.set_arg(0, args.inputs[0]);
  function.set_arg(1, output);
  function.set_arg_i64(2, rows);
  function.set_arg_i64(3, cols);

  // One block per row; the grid is capped and the kernel's row loop covers the rest. At least one block, so
  // that an empty shape still makes a (no-op) launch with an event.
  const std::int64_t blocks = std::clamp<std::int64_t>(rows, 1, 0x7fffffff);
  const std::array<unsigned, 3> grid{static_cast<unsigned>(blocks), 1, 1};
  const std::array<unsigned, 3> threads{static_cast<unsigned>(block), 1, 1};
  return [function, output, grid, threads]() mutable {
    return call_result{{function.launch(grid, threads)}, {output}};
  };
}

}  // namespace kbench::kernels

#endif  // KBENCH_HAS_CUDA
