// batch_softmax on the cuda backend: batch_softmax.cu compiled by NVRTC with the config as defines, one block
// per row (kernels/common/cuda_rows.hpp).
// The B matrices of M rows are contiguous: B * M rows of N floats, each normalized on its own.

#include <kbench/build_config.hpp>

#if KBENCH_HAS_CUDA

#include "batch_softmax.hpp"

#include "../common/cuda_rows.hpp"

extern const char* const kbench_batch_softmax_cuda_source;  // batch_softmax.cu, embedded by kbench_add_kernel

namespace kbench::kernels {

launcher bind_batch_softmax_cuda(const kernel_args& args) {
  return bind_rows_cuda(args, {"batch_softmax", kbench_batch_softmax_cuda_source, "batch_softmax_f32", 0});
}

}  // namespace kbench::kernels

#endif  // KBENCH_HAS_CUDA
