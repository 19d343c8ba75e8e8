// geglu on the cuda backend: geglu.cu compiled by NVRTC with the config as defines, one launch per call.

#include <kbench/build_config.hpp>

#if KBENCH_HAS_CUDA

#include "../common/cuda_elementwise.hpp"
#include "geglu.hpp"

extern const char* const kbench_geglu_cuda_source;  // geglu.cu, embedded by kbench_add_kernel

namespace kbench::kernels {

launcher bind_geglu_cuda(const kernel_args& args) {
  return bind_gated_rows_cuda(args, "geglu", kbench_geglu_cuda_source);
}

}  // namespace kbench::kernels

#endif  // KBENCH_HAS_CUDA
