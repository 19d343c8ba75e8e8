// add on the opencl backend: add.cl built with the config as -D defines.

#include <kbench/build_config.hpp>

#if KBENCH_HAS_OPENCL

#include "../common/opencl_elementwise.hpp"
#include "add.hpp"

extern const char* const kbench_add_opencl_source;  // add.cl, embedded by kbench_add_kernel

namespace kbench::kernels {

launcher bind_add_opencl(const kernel_args& args) {
  const std::int64_t n = element_count(args.shape);  // [elements]
  return bind_elementwise_opencl(args, {.name = "add",
                                        .source = kbench_add_opencl_source,
                                        .entry = "add_kernel",
                                        .input_bytes = {float_bytes(n), float_bytes(n)},
                                        .output_bytes = float_bytes(n),
                                        .scalars = {n},
                                        .row_elements = n});
}

}  // namespace kbench::kernels

#endif  // KBENCH_HAS_OPENCL
