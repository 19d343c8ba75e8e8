// low_mem_dropout on the cuda backend: low_mem_dropout.cu compiled by NVRTC with the config as defines,
// one launch per call.

#include <kbench/build_config.hpp>

#if KBENCH_HAS_CUDA

#include "../common/cuda_elementwise.hpp"
#include "low_mem_dropout.hpp"

// low_mem_dropout.cu, embedded by kbench_add_kernel
extern const char* const kbench_low_mem_dropout_cuda_source;

namespace kbench::kernels {

launcher bind_low_mem_dropout_cuda(const kernel_args& args) {
  const std::int64_t n = element_count(args.shape);  // [elements]
  if (n > std::int64_t{1} << 32) {
    KBENCH_THROW("low_mem_dropout/cuda: {} elements do not fit a uint32 index", n);
  }
  return bind_elementwise_cuda(args, {.name = "low_mem_dropout",
                                      .source = kbench_low_mem_dropout_cuda_source,
                                      .entry = "low_mem_dropout_f32",
                                      .input_bytes = {float_bytes(n), float_bytes(1)},
                                      .output_bytes = float_bytes(n),
                                      .scalars = {n},
                                      .row_elements = n});
}

}  // namespace kbench::kernels

#endif  // KBENCH_HAS_CUDA
