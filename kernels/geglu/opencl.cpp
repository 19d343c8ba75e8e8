// geglu on the opencl backend: geglu.cl built with the config as -D defines, a 2-D launch (vectors of a
// row x rows).

#include <kbench/build_config.hpp>

#if KBENCH_HAS_OPENCL

#include "../common/opencl_elementwise.hpp"
#include "geglu.hpp"

extern const char* const kbench_geglu_opencl_source;  // geglu.cl, embedded by kbench_add_kernel

namespace kbench::kernels {

launcher bind_geglu_opencl(const kernel_args& args) {
  return bind_gated_rows_opencl(args, "geglu", kbench_geglu_opencl_source);
}

}  // namespace kbench::kernels

#endif  // KBENCH_HAS_OPENCL
