// geglu on the cuda backend: geglu.cu compiled by NVRTC with the config as defines, one launch per call.

#include <kbench/build_config.hpp>

#if KBENCH_HAS_CUDA

#include <kbench/backends/cuda.hpp>
#include <kbench/error.hpp>

#include "geglu.hpp"

#include <algorithm>
#include <array>
#include <cstdint>

extern const char* const kbench_geglu_cuda_source;  // geglu.cu, embedded by kbench_add_kernel

namespace kbench::kernels {

launcher bind_geglu_cuda(const kernel_args& args) {
  auto device = std::dynamic_pointer_cast<cuda::cuda_device>(args.device);
  if (!device) {
    KBENCH_THROW("geglu/cuda needs a cuda device, got {}",
                 args.device ? to_string(args.device->info().backend) : "no device");
  }
  if (args.shape.size() != 2) KBENCH_THROW("geglu/cuda: shape {} is not [M, N]", to_string(args.shape));
  if (args.inputs.size() != 1) KBENCH_THROW("geglu/cuda takes 1 input, got {}", args.inputs.size());
  const std::int64_t rows = args.shape[0];
  const std::int64_t cols = args.shape[1];  // output columns N; an input row holds 2N
  const auto out_bytes = static_cast<std::size_t>(rows * cols) * sizeof(float);
  if (args.inputs[0]->size_bytes() < 2 * out_bytes) {
    KBENCH_THROW("geglu/cuda: input holds {} bytes, output shape {} needs {}", args.inputs[0]->size_bytes(),
                 to_string(args.shape), 2 * out_bytes);
  }

  // Missing parameters take geglu.cu's defaults; they are passed explicitly so the build is fully determined.
  config defines = args.config;
  const std::int64_t block = defines.try_emplace("BLOCK", 256).first->second;  // [threads per block]
  const std::int64_t vec = defines.try_emplace("VEC", 4).first->second;        // [outputs per thread]
  if (vec != 1 && vec != 2 && vec != 4) KBENCH_THROW("geglu/cuda: VEC must be 1, 2 or 4, got {}", vec);
  const auto max_block = static_cast<std::int64_t>(device->info().max_work_group_size);
  if (block < 1 || block > max_block) {
    KBENCH_THROW("geglu/cuda: BLOCK must be in [1, {}] on {}, got {}", max_block, device->info().name, block);
  }

  cuda::cuda_module module = device->build_module(kbench_geglu_cuda_source, defines);
  cuda::cuda_function function = module.function("geglu_f32");
  buffer_ptr output = output_buffer(args, 0, out_bytes);
  function.set_arg(0, args.inputs[0]);
  function.set_arg(1, output);
  function.set_arg_i64(2, rows);
  function.set_arg_i64(3, cols);

  // One thread per VEC outputs of a row; the grid is capped and the kernel's stride loop covers the rest.
  const std::int64_t vectors = rows * ((cols + vec - 1) / vec);
  const std::int64_t blocks = std::clamp<std::int64_t>((vectors + block - 1) / block, 1, 0x7fffffff);
  const std::array<unsigned, 3> grid{static_cast<unsigned>(blocks), 1, 1};
  const std::array<unsigned, 3> threads{static_cast<unsigned>(block), 1, 1};
  return [function, output, grid, threads]() mutable {
    return call_result{{function.launch(grid, threads)}, {output}};
  };
}

}  // namespace kbench::kernels

#endif  // KBENCH_HAS_CUDA
