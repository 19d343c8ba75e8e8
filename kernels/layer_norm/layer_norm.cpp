// Registration of layer_norm (two-pass statistics) on the layer norms' shared problem
// (common/layer_norm_problem.hpp).

#include <kbench/suite/registry.hpp>

#include "layer_norm.hpp"

#include "../common/layer_norm_problem.hpp"
#include "../common/row_kernel_spaces.hpp"

namespace kbench::kernels {

KBENCH_KERNEL(layer_norm) {
  kernel_builder builder("layer_norm");
  builder.describe("y = layer_norm(x, [N], w, b, eps=1e-5) over rows of x [M, N]; two-pass mean, variance");
  define_layer_norm_problem(builder);
  row_spaces::implement_rows(builder, &bind_layer_norm_cpu, KBENCH_IF_OPENCL(&bind_layer_norm_opencl),
                             KBENCH_IF_CUDA(&bind_layer_norm_cuda));
  return builder;
}

}  // namespace kbench::kernels
