// swiglu on the cuda backend: swiglu.cu compiled by NVRTC with the config as defines, one launch per call.

#include <kbench/build_config.hpp>

#if KBENCH_HAS_CUDA

#include "../common/cuda_elementwise.hpp"
#include "swiglu.hpp"

extern const char* const kbench_swiglu_cuda_source;  // swiglu.cu, embedded by kbench_add_kernel

namespace kbench::kernels {

launcher bind_swiglu_cuda(const kernel_args& args) {
  return bind_gated_rows_cuda(args, "swiglu", kbench_swiglu_cuda_source);
}

}  // namespace kbench::kernels

#endif  // KBENCH_HAS_CUDA
