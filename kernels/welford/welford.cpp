// Registration of welford (layer norm with Welford statistics): the softmax row shapes [1024, 256..4096] plus
// a large one for bandwidth.

#include <kbench/suite/registry.hpp>

#include "welford.hpp"

#include "../common/row_kernel_spaces.hpp"

namespace kbench::kernels {

KBENCH_KERNEL(welford) {
  kernel_builder builder("welford");
  builder.describe("y = layer_norm(x, [N], w, b, eps=1e-5) over rows of x [M, N]; Welford + Chan statistics")
      .shapes({{1024, 256}, {1024, 512}, {1024, 1024}, {1024, 2048}, {1024, 4096}, {4096, 4096}})
      .inputs([](const shape& s, std::uint64_t seed) {
        const shape row{s.back()};
        // x has a non-zero mean (1) so that the statistics are not trivially centred; w near 1, b near 0.
        return std::vector{uniform_tensor(s, seed, -3.0f, 5.0f), uniform_tensor(row, seed + 1, 0.5f, 1.5f),
                           uniform_tensor(row, seed + 2, -0.5f, 0.5f)};
      })
      // Outputs are O(1) (|y| < ~3); mean and variance carry a few ulp of relative error after N <= 4096
      // accumulations, and the normalize step a few more, so errors stay around 1e-6: inside atol 1e-5 + rtol
      // 1e-5.
      .tolerance(1e-5, 1e-5)
      .bytes_moved([](const shape& s) {
        return 2.0 * sizeof(float) * static_cast<double>(element_count(s)) +
               2.0 * sizeof(float) * static_cast<double>(s.back());  // x read + y written, w and b read
      });
  row_spaces::implement_rows(builder, &bind_welford_cpu, KBENCH_IF_OPENCL(&bind_welford_opencl),
                             KBENCH_IF_CUDA(&bind_welford_cuda));
  return builder;
}

}  // namespace kbench::kernels
