// softmax_two_pass on the cuda backend: softmax_two_pass.cu compiled by NVRTC with the config as defines, one
// block per row.

#include <kbench/build_config.hpp>

#if KBENCH_HAS_CUDA

#include <kbench/backends/cuda.hpp>
#include <kbench/error.hpp>

#include "softmax_two_pass.hpp"

#include <array>
#include <cstdint>

extern const char* const
    kbench_softmax_two_pass_cuda_source;  // softmax_two_pass.cu, embedded by kbench_add_kernel

namespace kbench::kernels {

launcher bind_softmax_two_pass_cuda(const kernel_args& args) {
  auto device = std::dynamic_pointer_cast<cuda::cuda_device>(args.device);
  if (!device) {
    KBENCH_THROW("softmax_two_pass/cuda needs a cuda device, got {}",
                 args.device ? std::string(to_string(args.device->info().backend)) : std::string("none"));
  }
  if (args.shape.size() != 2 || args.shape[0] <= 0 || args.shape[1] <= 0) {
    KBENCH_THROW("softmax_two_pass/cuda: shape must be [M, N] with M, N > 0, got {}", to_string(args.shape));
  }
  if (args.inputs.size() != 1 || !args.inputs[0]) {
    KBENCH_THROW("softmax_two_pass/cuda takes 1 input, got {}", args.inputs.size());
  }
  const std::int64_t rows = args.shape[0];
  const std::int64_t cols = args.shape[1];
  const std::size_t bytes = static_cast<std::size_t>(rows * cols) * sizeof(float);
  if (args.inputs[0]->size_bytes() < bytes) {
    KBENCH_THROW("softmax_two_pass/cuda: input holds {} bytes, shape {} needs {}",
                 args.inputs[0]->size_bytes(), to_string(args.shape), bytes);
  }
  if (rows > 0x7fffffff) KBENCH_THROW("softmax_two_pass/cuda: {} rows exceed the grid's x limit", rows);

  // A missing BLOCK takes the .cu default, passed explicitly so the build is fully determined.
  config defines = args.config;
  const std::int64_t block = defines.try_emplace("BLOCK", 256).first->second;  // [threads per block]
  const auto max_block = static_cast<std::int64_t>(device->info().max_work_group_size);
  if (block < 32 || block % 32 != 0 || block > max_block) {
    KBENCH_THROW("softmax_two_pass/cuda: BLOCK must be a multiple of 32 from 32 to {}, got {}", max_block,
                 block);
  }

  cuda::cuda_module module = device->build_module(kbench_softmax_two_pass_cuda_source, defines);
  cuda::cuda_function function = module.function("softmax_two_pass_f32");
  buffer_ptr output = device->allocate(bytes);
  function.set_arg(0, args.inputs[0]);
  function.set_arg(1, output);
  function.set_arg_i64(2, cols);

  const std::array<unsigned, 3> grid{static_cast<unsigned>(rows), 1, 1};  // one block per row
  const std::array<unsigned, 3> threads{static_cast<unsigned>(block), 1, 1};
  return [function, output, grid, threads]() mutable {
    return call_result{{function.launch(grid, threads)}, {output}};
  };
}

}  // namespace kbench::kernels

#endif  // KBENCH_HAS_CUDA
