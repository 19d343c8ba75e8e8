#pragma once
// The problem the layer norms (layer_norm, welford) solve, which they share so that their figures compare:
// y = layer_norm(x, [N], w, b, eps=1e-5) over the rows of x [M, N], on the softmax row shapes
// [1024, 256..4096] plus a large one for bandwidth. The kernels differ only in how they compute the row
// statistics.

#include <kbench/suite/registry.hpp>

namespace kbench::kernels {

inline kernel_builder& define_layer_norm_problem(kernel_builder& builder) {
  return builder.shapes({{1024, 256}, {1024, 512}, {1024, 1024}, {1024, 2048}, {1024, 4096}, {4096, 4096}})
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
}

}  // namespace kbench::kernels
