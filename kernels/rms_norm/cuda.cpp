// rms_norm on the cuda backend: rms_norm.cu compiled by NVRTC with the config as defines, one block per row
// (kernels/common/cuda_rows.hpp).

#include <kbench/build_config.hpp>

#if KBENCH_HAS_CUDA

#include "rms_norm.hpp"

#include "../common/cuda_rows.hpp"

extern const char* const kbench_rms_norm_cuda_source;  // rms_norm.cu, embedded by kbench_add_kernel

namespace kbench::kernels {

launcher bind_rms_norm_cuda(const kernel_args& args) {
  return bind_rows_cuda(args, {"rms_norm", kbench_rms_norm_cuda_source, "rms_norm_f32", 1});
}

}  // namespace kbench::kernels

#endif  // KBENCH_HAS_CUDA
