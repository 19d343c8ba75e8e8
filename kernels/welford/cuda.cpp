// welford on the cuda backend: welford.cu compiled by NVRTC with the config as defines, one block per row
// (kernels/common/cuda_rows.hpp).

#include <kbench/build_config.hpp>

#if KBENCH_HAS_CUDA

#include "welford.hpp"

#include "../common/cuda_rows.hpp"

extern const char* const kbench_welford_cuda_source;  // welford.cu, embedded by kbench_add_kernel

namespace kbench::kernels {

launcher bind_welford_cuda(const kernel_args& args) {
  return bind_rows_cuda(args, {"welford", kbench_welford_cuda_source, "welford_f32", 2});
}

}  // namespace kbench::kernels

#endif  // KBENCH_HAS_CUDA
