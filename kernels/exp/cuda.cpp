// exp on the cuda backend: exp.cu compiled by NVRTC with the config as defines, one launch per call.

#include <kbench/build_config.hpp>

#if KBENCH_HAS_CUDA

#include "../common/cuda_elementwise.hpp"
#include "exp.hpp"

extern const char* const kbench_exp_cuda_source;  // exp.cu, embedded by kbench_add_kernel

namespace kbench::kernels {

launcher bind_exp_cuda(const kernel_args& args) {
  const std::int64_t n = element_count(args.shape);  // [elements]
  return bind_elementwise_cuda(args, {.name = "exp",
                                      .source = kbench_exp_cuda_source,
                                      .entry = "exp_f32",
                                      .input_bytes = {float_bytes(n)},
                                      .output_bytes = float_bytes(n),
                                      .scalars = {n},
                                      .row_elements = n});
}

}  // namespace kbench::kernels

#endif  // KBENCH_HAS_CUDA
