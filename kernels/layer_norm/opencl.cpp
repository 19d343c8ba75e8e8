// layer_norm on the opencl backend: layer_norm.cl built with the config as -D defines, one work-group per row
// (kernels/common/opencl_rows.hpp).

#include <kbench/build_config.hpp>

#if KBENCH_HAS_OPENCL

#include "layer_norm.hpp"

#include "../common/opencl_rows.hpp"

extern const char* const kbench_layer_norm_opencl_source;  // layer_norm.cl, embedded by kbench_add_kernel

namespace kbench::kernels {

launcher bind_layer_norm_opencl(const kernel_args& args) {
  return bind_rows_opencl(args, {"layer_norm", kbench_layer_norm_opencl_source, "layer_norm", 2});
}

}  // namespace kbench::kernels

#endif  // KBENCH_HAS_OPENCL
