// rms_norm on the opencl backend: rms_norm.cl built with the config as -D defines, one work-group per row
// (kernels/common/opencl_rows.hpp).

#include <kbench/build_config.hpp>

#if KBENCH_HAS_OPENCL

#include "rms_norm.hpp"

#include "../common/opencl_rows.hpp"

extern const char* const kbench_rms_norm_opencl_source;  // rms_norm.cl, embedded by kbench_add_kernel

namespace kbench::kernels {

launcher bind_rms_norm_opencl(const kernel_args& args) {
  return bind_rows_opencl(args, {"rms_norm", kbench_rms_norm_opencl_source, "rms_norm", 1});
}

}  // namespace kbench::kernels

#endif  // KBENCH_HAS_OPENCL
