// Registration of rms_norm: the softmax row shapes [1024, 256..4096] plus a large one for bandwidth.

#include <kbench/suite/registry.hpp>

#include "rms_norm.hpp"

#include "../common/row_kernel_spaces.hpp"

namespace kbench::kernels {

KBENCH_KERNEL(rms_norm) {
  kernel_builder builder("rms_norm");
  builder.describe("y = x / sqrt(mean(x^2, dim=-1) + 1e-6) * w over rows of x [M, N]")
      .shapes({{1024, 256}, {1024, 512}, {1024, 1024}, {1024, 2048}, {1024, 4096}, {4096, 4096}})
      .inputs([](const shape& s, std::uint64_t seed) {
        return std::vector{uniform_tensor(s, seed, -4.0f, 4.0f),
                           uniform_tensor({s.back()}, seed + 1, 0.5f, 1.5f)};
      })
      // Outputs are O(1) (|y| < ~2.6); the mean of squares carries a few ulp of relative error after N <=
      // 4096 accumulations and the scaling two more roundings, so errors stay around 1e-6: inside 1e-5 + 1e-5
      // * |y|.
      .tolerance(1e-5, 1e-5)
      .bytes_moved([](const shape& s) {
        return 2.0 * sizeof(float) * static_cast<double>(element_count(s)) +
               sizeof(float) * static_cast<double>(s.back());  // x read + y written, w read
      });
  row_spaces::implement_rows(builder, &bind_rms_norm_cpu, KBENCH_IF_OPENCL(&bind_rms_norm_opencl),
                             KBENCH_IF_CUDA(&bind_rms_norm_cuda));
  return builder;
}

}  // namespace kbench::kernels
