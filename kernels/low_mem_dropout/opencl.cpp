// low_mem_dropout on the opencl backend: low_mem_dropout.cl built with the config as -D defines.

#include <kbench/build_config.hpp>

#if KBENCH_HAS_OPENCL

#include "../common/opencl_elementwise.hpp"
#include "low_mem_dropout.hpp"

// low_mem_dropout.cl, embedded by kbench_add_kernel
extern const char* const kbench_low_mem_dropout_opencl_source;

namespace kbench::kernels {

launcher bind_low_mem_dropout_opencl(const kernel_args& args) {
  const std::int64_t n = element_count(args.shape);  // [elements]
  if (n > std::int64_t{1} << 32) {
    KBENCH_THROW("low_mem_dropout/opencl: {} elements do not fit a uint32 index", n);
  }
  return bind_elementwise_opencl(args, {.name = "low_mem_dropout",
                                        .source = kbench_low_mem_dropout_opencl_source,
                                        .entry = "low_mem_dropout_kernel",
                                        .input_bytes = {float_bytes(n), float_bytes(1)},
                                        .output_bytes = float_bytes(n),
                                        .scalars = {n},
                                        .row_elements = n});
}

}  // namespace kbench::kernels

#endif  // KBENCH_HAS_OPENCL
