// layer_norm on the cuda backend: layer_norm.cu compiled by NVRTC with the config as defines, one block per
// row.

#include <kbench/build_config.hpp>

#if KBENCH_HAS_CUDA

#include <kbench/backends/cuda.hpp>
#include <kbench/error.hpp>

#include "layer_norm.hpp"

#include <array>
#include <cstdint>

extern const char* const kbench_layer_norm_cuda_source;  // layer_norm.cu, embedded by kbench_add_kernel

namespace kbench::kernels {

launcher bind_layer_norm_cuda(const kernel_args& args) {
  auto device = std::dynamic_pointer_cast<cuda::cuda_device>(args.device);
  if (!device) {
    KBENCH_THROW("layer_norm/cuda needs a cuda device, got {}",
                 args.device ? std::string(to_string(args.device->info().backend)) : std::string("none"));
  }
  if (args.shape.size() != 2 || args.shape[0] <= 0 || args.shape[1] <= 0) {
    KBENCH_THROW("layer_norm/cuda: shape must be [M, N] with M, N > 0, got {}", to_string(args.shape));
  }
  if (args.inputs.size() != 3 || !args.inputs[0] || !args.inputs[1] || !args.inputs[2]) {
    KBENCH_THROW("layer_norm/cuda takes 3 inputs (x, w, b), got {}", args.inputs.size());
  }
  const std::int64_t rows = args.shape[0];
  const std::int64_t cols = args.shape[1];
  const std::size_t bytes = static_cast<std::size_t>(rows * cols) * sizeof(float);
  const std::size_t row_bytes = static_cast<std::size_t>(cols) * sizeof(float);
  if (args.inputs[0]->size_bytes() < bytes || args.inputs[1]->size_bytes() < row_bytes ||
      args.inputs[2]->size_bytes() < row_bytes) {
    KBENCH_THROW("layer_norm/cuda: inputs too small for shape {}", to_string(args.shape));
  }
  if (rows > 0x7fffffff) KBENCH_THROW("layer_norm/cuda: {} rows exceed the grid's x limit", rows);

  // A missing BLOCK takes the .cu default, passed explicitly so the build is fully determined.
  config defines = args.config;
  const std::int64_t block = defines.try_emplace("BLOCK", 256).first->second;  // [threads per block]
  const auto max_block = static_cast<std::int64_t>(device->info().max_work_group_size);
  if (block < 32 || block % 32 != 0 || block > max_block) {
    KBENCH_THROW("layer_norm/cuda: BLOCK must be a multiple of 32 from 32 to {}, got {}", max_block, block);
  }

  cuda::cuda_module module = device->build_module(kbench_layer_norm_cuda_source, defines);
  cuda::cuda_function function = module.function("layer_norm_f32");
  buffer_ptr output = device->allocate(bytes);
  function.set_arg(0, args.inputs[0]);
  function.set_arg(1, args.inputs[1]);
  function.set_arg(2, args.inputs[2]);
  function.set_arg(3, output);
  function.set_arg_i64(4, cols);

  const std::array<unsigned, 3> grid{static_cast<unsigned>(rows), 1, 1};  // one block per row
  const std::array<unsigned, 3> threads{static_cast<unsigned>(block), 1, 1};
  return [function, output, grid, threads]() mutable {
    return call_result{{function.launch(grid, threads)}, {output}};
  };
}

}  // namespace kbench::kernels

#endif  // KBENCH_HAS_CUDA
