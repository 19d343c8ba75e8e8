// Registration of batch_softmax: batches of square-ish score matrices [B, M, N], plus a large one (16M
// elements).

#include <kbench/suite/registry.hpp>

#include "batch_softmax.hpp"

#include "../common/row_kernel_spaces.hpp"

namespace kbench::kernels {

KBENCH_KERNEL(batch_softmax) {
  kernel_builder builder("batch_softmax");
  builder
      .describe("y = softmax(x, dim=-1) over x [B, M, N]; two passes per row: online max+sum, then normalize")
      .shapes({{4, 256, 256}, {4, 512, 512}, {8, 512, 1024}, {8, 1024, 1024}, {16, 1024, 1024}})
      .inputs([](const shape& s, std::uint64_t seed) {
        return std::vector{uniform_tensor(s, seed, -8.0f, 8.0f)};
      })
      // Every output is a product of a few correctly rounded float32 operations (exp within ~1.5 ulp, a row
      // sum of up to 4096 positive terms, one multiply): relative errors stay near 1e-6, well inside rtol;
      // atol only matters for outputs below ~1e-5, where it is far above the absolute error.
      .tolerance(1e-5, 1e-5)
      .bytes_moved(
          [](const shape& s) { return 2.0 * sizeof(float) * static_cast<double>(element_count(s)); });
  row_spaces::implement_rows(builder, &bind_batch_softmax_cpu, KBENCH_IF_OPENCL(&bind_batch_softmax_opencl),
                             KBENCH_IF_CUDA(&bind_batch_softmax_cuda));
  return builder;
}

}  // namespace kbench::kernels
