// exp on the opencl backend: exp.cl built with the config as -D defines.

#include <kbench/build_config.hpp>

#if KBENCH_HAS_OPENCL

#include "../common/opencl_elementwise.hpp"
#include "exp.hpp"

extern const char* const kbench_exp_opencl_source;  // exp.cl, embedded by kbench_add_kernel

namespace kbench::kernels {

launcher bind_exp_opencl(const kernel_args& args) {
  const std::int64_t n = element_count(args.shape);  // [elements]
  return bind_elementwise_opencl(args, {.name = "exp",
                                        .source = kbench_exp_opencl_source,
                                        .entry = "exp_kernel",
                                        .input_bytes = {float_bytes(n)},
                                        .output_bytes = float_bytes(n),
                                        .scalars = {n},
                                        .row_elements = n,
                                        .max_vec = 8});
}

}  // namespace kbench::kernels

#endif  // KBENCH_HAS_OPENCL
