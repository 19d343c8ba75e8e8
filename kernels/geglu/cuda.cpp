// geglu on the cuda backend: geglu.cu compiled by NVRTC with the config as defines, one launch per call.

#include <kbench/build_config.hpp>

#if KBENCH_HAS_CUDA

#include "../common/cuda_elementwise.hpp"
#include "geglu.hpp"

extern const char* const kbench_geglu_cuda_source;  // geglu.cu, embedded by kbench_add_kernel

namespace kbench::kernels {

launcher bind_geglu_cuda(const kernel_args& args) {
  if (args.shape.size() != 2 || args.shape[0] <= 0 || args.shape[1] <= 0) {
    KBENCH_THROW("geglu/cuda: shape {} is not a non-empty [M, N]", to_string(args.shape));
  }
  const std::int64_t rows = args.shape[0];
  const std::int64_t cols = args.shape[1];  // output columns N; an input row holds 2N
  return bind_elementwise_cuda(args, {.name = "geglu",
                                      .source = kbench_geglu_cuda_source,
                                      .entry = "gated_rows_f32",
                                      .input_bytes = {float_bytes(2 * rows * cols)},
                                      .output_bytes = float_bytes(rows * cols),
                                      .scalars = {rows, cols},
                                      .row_elements = cols,
                                      .rows = rows});
}

}  // namespace kbench::kernels

#endif  // KBENCH_HAS_CUDA
