// low_mem_dropout on the cuda backend: low_mem_dropout.cu compiled by NVRTC with the config as defines, one
// launch per call.

#include <kbench/build_config.hpp>

#if KBENCH_HAS_CUDA

#include <kbench/backends/cuda.hpp>
#include <kbench/error.hpp>

#include "low_mem_dropout.hpp"

#include <algorithm>
#include <array>
#include <cstdint>

extern const char* const kbench_low_mem_dropout_cuda_source;  // embedded by kbench_add_kernel

namespace kbench::kernels {

launcher bind_low_mem_dropout_cuda(const kernel_args& args) {
  auto device = std::dynamic_pointer_cast<cuda::cuda_device>(args.device);
  if (!device) {
    KBENCH_THROW("low_mem_dropout/cuda needs a cuda device, got {}",
                 args.device ? to_string(args.device->info().backend) : "no device");
  }
  if (args.inputs.size() != 2) {
    KBENCH_THROW("low_mem_dropout/cuda takes 2 inputs (x, seed), got {}", args.inputs.size());
  }
  const std::int64_t n = element_count(args.shape);  // [elements]
  if (n > std::int64_t{1} << 32)
    KBENCH_THROW("low_mem_dropout/cuda: {} elements do not fit a uint32 index", n);
  const auto bytes = static_cast<std::size_t>(n) * sizeof(float);
  if (args.inputs[0]->size_bytes() < bytes || args.inputs[1]->size_bytes() < sizeof(float)) {
    KBENCH_THROW("low_mem_dropout/cuda: inputs hold {} and {} bytes, shape {} needs {} and {}",
                 args.inputs[0]->size_bytes(), args.inputs[1]->size_bytes(), to_string(args.shape), bytes,
                 sizeof(float));
  }

  // Missing parameters take the .cu's defaults; they are passed explicitly so the build is fully determined.
  config defines = args.config;
  const std::int64_t block = defines.try_emplace("BLOCK", 256).first->second;  // [threads per block]
  const std::int64_t vec = defines.try_emplace("VEC", 4).first->second;        // [elements per thread]
  if (vec != 1 && vec != 2 && vec != 4)
    KBENCH_THROW("low_mem_dropout/cuda: VEC must be 1, 2 or 4, got {}", vec);
  const auto max_block = static_cast<std::int64_t>(device->info().max_work_group_size);
  if (block < 1 || block > max_block) {
    KBENCH_THROW("low_mem_dropout/cuda: BLOCK must be in [1, {}] on {}, got {}", max_block,
                 device->info().name, block);
  }

  cuda::cuda_module module = device->build_module(kbench_low_mem_dropout_cuda_source, defines);
  cuda::cuda_function function = module.function("low_mem_dropout_f32");
  buffer_ptr output = output_buffer(args, 0, bytes);
  function.set_arg(0, args.inputs[0]);
  function.set_arg(1, args.inputs[1]);
  function.set_arg(2, output);
  function.set_arg_i64(3, n);

  // One thread per VEC elements; the grid is capped and the kernel's stride loop covers the rest. At least
  // one block, so that an empty shape still makes a (no-op) launch with an event.
  const std::int64_t per_block = block * vec;
  const std::int64_t blocks = std::clamp<std::int64_t>((n + per_block - 1) / per_block, 1, 0x7fffffff);
  const std::array<unsigned, 3> grid{static_cast<unsigned>(blocks), 1, 1};
  const std::array<unsigned, 3> threads{static_cast<unsigned>(block), 1, 1};
  return [function, output, grid, threads]() mutable {
    return call_result{{function.launch(grid, threads)}, {output}};
  };
}

}  // namespace kbench::kernels

#endif  // KBENCH_HAS_CUDA
