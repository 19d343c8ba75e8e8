// batch_softmax on the opencl backend: kernels/common/softmax_rows.cl built with the config as -D defines,
// one work-group per row (kernels/common/opencl_rows.hpp). The B matrices of M rows are contiguous: B * M
// rows of N floats, each normalized on its own.

#include <kbench/build_config.hpp>

#if KBENCH_HAS_OPENCL

#include "batch_softmax.hpp"

#include "../common/opencl_rows.hpp"

// kernels/common/softmax_rows.cl, embedded by kbench_add_kernel
extern const char* const kbench_batch_softmax_opencl_source;

namespace kbench::kernels {

launcher bind_batch_softmax_opencl(const kernel_args& args) {
  return bind_rows_opencl(args, {"batch_softmax", kbench_batch_softmax_opencl_source, "softmax_rows", 0});
}

}  // namespace kbench::kernels

#endif  // KBENCH_HAS_OPENCL
