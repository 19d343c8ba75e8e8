// layer_norm on the cuda backend: layer_norm.cu compiled by NVRTC with the config as defines, one block per
// row (kernels/common/cuda_rows.hpp).

#include <kbench/build_config.hpp>

#if KBENCH_HAS_CUDA

#include "layer_norm.hpp"

#include "../common/cuda_rows.hpp"

extern const char* const kbench_layer_norm_cuda_source;  // layer_norm.cu, embedded by kbench_add_kernel

namespace kbench::kernels {

launcher bind_layer_norm_cuda(const kernel_args& args) {
  return bind_rows_cuda(args, {"layer_norm", kbench_layer_norm_cuda_source, "layer_norm_f32", 2});
}

}  // namespace kbench::kernels

#endif  // KBENCH_HAS_CUDA
