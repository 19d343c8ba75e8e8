// Registration of welford (layer norm with Welford + Chan statistics) on the layer norms' shared problem
// (common/layer_norm_problem.hpp).

#include <kbench/suite/registry.hpp>

#include "welford.hpp"

#include "../common/layer_norm_problem.hpp"
#include "../common/row_kernel_spaces.hpp"

namespace kbench::kernels {

KBENCH_KERNEL(welford) {
  kernel_builder builder("welford");
  builder.describe("y = layer_norm(x, [N], w, b, eps=1e-5) over rows of x [M, N]; Welford + Chan statistics");
  define_layer_norm_problem(builder);
  row_spaces::implement_rows(builder, &bind_welford_cpu, KBENCH_IF_OPENCL(&bind_welford_opencl),
                             KBENCH_IF_CUDA(&bind_welford_cuda));
  return builder;
}

}  // namespace kbench::kernels
