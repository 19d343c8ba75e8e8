// batch_softmax's torch reference and baseline: torch's softmax over rows (kernels/common/torch_softmax.hpp).

#include "../common/torch_softmax.hpp"

namespace kbench::kernels {

// The torch reference and baseline of the kernel in batch_softmax.cpp (built with libtorch only).
KBENCH_KERNEL_EXTENSION(batch_softmax_torch) {
  return torch_softmax::extension("batch_softmax");
}

}  // namespace kbench::kernels
