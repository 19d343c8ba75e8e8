// Registration of softmax_two_pass: the TPU suite's row shapes [1024, 256..4096] plus a large one for
// bandwidth.

#include <kbench/suite/registry.hpp>

#include "softmax_two_pass.hpp"

#include "../common/row_kernel_spaces.hpp"

namespace kbench::kernels {

KBENCH_KERNEL(softmax_two_pass) {
  kernel_builder builder("softmax_two_pass");
  builder.describe("y = softmax(x, dim=-1) over rows of x [M, N]; two passes: online max+sum, then normalize")
      .shapes({{1024, 256}, {1024, 512}, {1024, 1024}, {1024, 2048}, {1024, 4096}, {4096, 4096}})
      .inputs([](const shape& s, std::uint64_t seed) {
        return std::vector{uniform_tensor(s, seed, -8.0f, 8.0f)};
      })
      // Every output is a product of a few correctly rounded float32 operations (exp within ~1.5 ulp, a row
      // sum of up to 4096 positive terms, one multiply): relative errors stay near 1e-6, well inside rtol;
      // atol only matters for outputs below ~1e-5, where it is far above the absolute error.
      .tolerance(1e-5, 1e-5)
      .bytes_moved(
          [](const shape& s) { return 2.0 * sizeof(float) * static_cast<double>(element_count(s)); });
  row_spaces::implement_rows(builder, &bind_softmax_two_pass_cpu,
                             KBENCH_IF_OPENCL(&bind_softmax_two_pass_opencl),
                             KBENCH_IF_CUDA(&bind_softmax_two_pass_cuda));
  return builder;
}

}  // namespace kbench::kernels
