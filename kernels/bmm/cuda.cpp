// bmm on the cuda backend: bmm.cu compiled by NVRTC with the config as defines, one TILE x TILE block per
// tile of C.

#include <kbench/build_config.hpp>

#if KBENCH_HAS_CUDA

#include <kbench/backends/cuda.hpp>
#include <kbench/error.hpp>

#include "../common/binding_checks.hpp"
#include "bmm.hpp"

#include <array>
#include <cstdint>
#include <limits>

extern const char* const kbench_bmm_cuda_source;  // bmm.cu, embedded by kbench_add_kernel

namespace kbench::kernels {

launcher bind_bmm_cuda(const kernel_args& args) {
  auto device = device_as<cuda::cuda_device>(args, "bmm/cuda", "a cuda device");
  const bmm_dims d = parse_bmm_shape(args.shape, "bmm/cuda");
  if (args.inputs.size() != 2 || !args.inputs[0] || !args.inputs[1]) {
    KBENCH_THROW("bmm/cuda takes 2 inputs (A, B), got {}", args.inputs.size());
  }
  constexpr std::int64_t int_max = std::numeric_limits<std::int32_t>::max();
  if (d.m > int_max || d.n > int_max || d.k > int_max || d.batch > 65535) {
    KBENCH_THROW("bmm/cuda: M, N, K must fit in a 32-bit int and B in the grid's z limit (65535), shape {}",
                 to_string(args.shape));
  }
  if (args.inputs[0]->size_bytes() < static_cast<std::size_t>(d.batch * d.m * d.k) * sizeof(float) ||
      args.inputs[1]->size_bytes() < static_cast<std::size_t>(d.batch * d.k * d.n) * sizeof(float)) {
    KBENCH_THROW("bmm/cuda: inputs too small for shape {}", to_string(args.shape));
  }

  // A missing TILE takes the .cu default, passed explicitly so the build is fully determined.
  config defines = args.config;
  const std::int64_t tile = defines.try_emplace("TILE", 16).first->second;  // [elements per tile edge]
  const auto max_block = static_cast<std::int64_t>(device->info().max_work_group_size);
  if (tile < 1 || tile * tile > max_block) {
    KBENCH_THROW("bmm/cuda: TILE={} needs TILE * TILE threads per block, at most {} here", tile, max_block);
  }

  cuda::cuda_module module = device->build_module(kbench_bmm_cuda_source, defines);
  cuda::cuda_function function = module.function("bmm_f32");
  buffer_ptr output = output_buffer(args, 0, static_cast<std::size_t>(d.batch * d.m * d.n) * sizeof(float));
  function.set_arg(0, args.inputs[0]);
  function.set_arg(1, args.inputs[1]);
  function.set_arg(2, output);
  function.set_arg_i32(3, static_cast<std::int32_t>(d.m));
  function.set_arg_i32(4, static_cast<std::int32_t>(d.n));
  function.set_arg_i32(5, static_cast<std::int32_t>(d.k));

  const std::array<unsigned, 3> grid{static_cast<unsigned>((d.n + tile - 1) / tile),
                                     static_cast<unsigned>((d.m + tile - 1) / tile),
                                     static_cast<unsigned>(d.batch)};
  const std::array<unsigned, 3> threads{static_cast<unsigned>(tile), static_cast<unsigned>(tile), 1};
  return [function, output, grid, threads]() mutable {
    return call_result{{function.launch(grid, threads)}, {output}};
  };
}

}  // namespace kbench::kernels

#endif  // KBENCH_HAS_CUDA
