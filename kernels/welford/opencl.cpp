// welford on the opencl backend: welford.cl built with the config as -D defines, one work-group per row
// (kernels/common/opencl_rows.hpp).

#include <kbench/build_config.hpp>

#if KBENCH_HAS_OPENCL

#include "welford.hpp"

#include "../common/opencl_rows.hpp"

extern const char* const kbench_welford_opencl_source;  // welford.cl, embedded by kbench_add_kernel

namespace kbench::kernels {

launcher bind_welford_opencl(const kernel_args& args) {
  return bind_rows_opencl(args, {"welford", kbench_welford_opencl_source, "welford", 2});
}

}  // namespace kbench::kernels

#endif  // KBENCH_HAS_OPENCL
