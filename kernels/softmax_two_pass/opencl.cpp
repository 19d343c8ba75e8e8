// softmax_two_pass on the opencl backend: kernels/common/softmax_rows.cl built with the config as -D defines,
// one work-group per row (kernels/common/opencl_rows.hpp).

#include <kbench/build_config.hpp>

#if KBENCH_HAS_OPENCL

#include "softmax_two_pass.hpp"

#include "../common/opencl_rows.hpp"

// kernels/common/softmax_rows.cl, embedded by kbench_add_kernel
extern const char* const kbench_softmax_two_pass_opencl_source;

namespace kbench::kernels {

launcher bind_softmax_two_pass_opencl(const kernel_args& args) {
  return bind_rows_opencl(args,
                          {"softmax_two_pass", kbench_softmax_two_pass_opencl_source, "softmax_rows", 0});
}

}  // namespace kbench::kernels

#endif  // KBENCH_HAS_OPENCL
