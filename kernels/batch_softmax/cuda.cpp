// batch_softmax on the cuda backend: kernels/common/softmax_rows.cu compiled by NVRTC with the config as
// defines, one block per row (kernels/common/cuda_rows.hpp). The B matrices of M rows are contiguous: B * M
// rows of N floats, each normalized on its own.

#include <kbench/build_config.hpp>

#if KBENCH_HAS_CUDA

#include "batch_softmax.hpp"

#include "../common/cuda_rows.hpp"

// kernels/common/softmax_rows.cu, embedded by kbench_add_kernel
extern const char* const kbench_batch_softmax_cuda_source;

namespace kbench::kernels {

launcher bind_batch_softmax_cuda(const kernel_args& args) {
  return bind_rows_cuda(args, {"batch_softmax", kbench_batch_softmax_cuda_source, "softmax_rows_f32", 0});
}

}  // namespace kbench::kernels

#endif  // KBENCH_HAS_CUDA
