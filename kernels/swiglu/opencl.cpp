// swiglu on the opencl backend: swiglu.cl built with the config as -D defines, a 2-D launch (vectors of a
// row x rows).

#include <kbench/build_config.hpp>

#if KBENCH_HAS_OPENCL

#include "../common/opencl_elementwise.hpp"
#include "swiglu.hpp"

extern const char* const kbench_swiglu_opencl_source;  // swiglu.cl, embedded by kbench_add_kernel

namespace kbench::kernels {

launcher bind_swiglu_opencl(const kernel_args& args) {
  return bind_gated_rows_opencl(args, "swiglu", kbench_swiglu_opencl_source);
}

}  // namespace kbench::kernels

#endif  // KBENCH_HAS_OPENCL
