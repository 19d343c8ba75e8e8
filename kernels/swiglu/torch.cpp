// swiglu's torch reference and baseline (kernels/common/torch_gated.hpp) with the gate at::silu.

#include "../common/torch_gated.hpp"

namespace kbench::kernels {

namespace {
at::Tensor silu(const at::Tensor& b) {
  return at::silu(b);
}
at::Tensor& silu_out(at::Tensor& y, const at::Tensor& b) {
  return at::silu_out(y, b);
}
}  // namespace

// The torch reference and baseline of the kernel in swiglu.cpp (built with libtorch only).
KBENCH_KERNEL_EXTENSION(swiglu_torch) {
  return kernel_builder("swiglu")
      .reference(&torch_gated::reference<&silu>)
      .implement(backend_kind::torch, &torch_gated::bind_torch<&silu_out>, {},
                 "at::silu_out into the preallocated output + at::mul_out in place (no temporary)");
}

}  // namespace kbench::kernels
