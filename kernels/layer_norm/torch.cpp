// layer_norm's torch reference and baseline: torch's layer norm (kernels/common/torch_layer_norm.hpp).

#include "../common/torch_layer_norm.hpp"

namespace kbench::kernels {

// The torch reference and baseline of the kernel in layer_norm.cpp (built with libtorch only).
KBENCH_KERNEL_EXTENSION(layer_norm_torch) {
  return torch_layer_norm::extension("layer_norm");
}

}  // namespace kbench::kernels
