// swiglu on the opencl backend: swiglu.cl built with the config as -D defines, a 2-D launch (vectors of a
// row x rows).

#include <kbench/build_config.hpp>

#if KBENCH_HAS_OPENCL

#include "../common/opencl_elementwise.hpp"
#include "swiglu.hpp"

extern const char* const kbench_swiglu_opencl_source;  // swiglu.cl, embedded by kbench_add_kernel

namespace kbench::kernels {

launcher bind_swiglu_opencl(const kernel_args& args) {
  if (args.shape.size() != 2 || args.shape[0] <= 0 || args.shape[1] <= 0) {
    KBENCH_THROW("swiglu/opencl: shape {} is not a non-empty [M, N]", to_string(args.shape));
  }
  const std::int64_t rows = args.shape[0];
  const std::int64_t cols = args.shape[1];  // output columns N; an input row holds 2N
  return bind_elementwise_opencl(args, {.name = "swiglu",
                                        .source = kbench_swiglu_opencl_source,
                                        .entry = "gated_rows",
                                        .input_bytes = {float_bytes(2 * rows * cols)},
                                        .output_bytes = float_bytes(rows * cols),
                                        .scalars = {cols},
                                        .row_elements = cols,
                                        .rows = rows,
                                        .default_wg = 64});
}

}  // namespace kbench::kernels

#endif  // KBENCH_HAS_OPENCL
