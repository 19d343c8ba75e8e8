// softmax_two_pass's torch reference and baseline: torch's softmax over rows
// (kernels/common/torch_softmax.hpp).

#include "../common/torch_softmax.hpp"

namespace kbench::kernels {

// The torch reference and baseline of the kernel in softmax_two_pass.cpp (built with libtorch only).
KBENCH_KERNEL_EXTENSION(softmax_two_pass_torch) {
  return torch_softmax::extension("softmax_two_pass");
}

}  // namespace kbench::kernels
