// welford's torch reference and baseline: torch's layer norm (kernels/common/torch_layer_norm.hpp).

#include "../common/torch_layer_norm.hpp"

namespace kbench::kernels {

// The torch reference and baseline of the kernel in welford.cpp (built with libtorch only).
KBENCH_KERNEL_EXTENSION(welford_torch) {
  return torch_layer_norm::extension("welford");
}

}  // namespace kbench::kernels
