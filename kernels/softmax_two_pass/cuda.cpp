// softmax_two_pass on the cuda backend: kernels/common/softmax_rows.cu compiled by NVRTC with the config as
// defines, one block per row (kernels/common/cuda_rows.hpp).

#include <kbench/build_config.hpp>

#if KBENCH_HAS_CUDA

#include "softmax_two_pass.hpp"

#include "../common/cuda_rows.hpp"

// kernels/common/softmax_rows.cu, embedded by kbench_add_kernel
extern const char* const kbench_softmax_two_pass_cuda_source;

namespace kbench::kernels {

launcher bind_softmax_two_pass_cuda(const kernel_args& args) {
  return bind_rows_cuda(args,
                        {"softmax_two_pass", kbench_softmax_two_pass_cuda_source, "softmax_rows_f32", 0});
}

}  // namespace kbench::kernels

#endif  // KBENCH_HAS_CUDA
