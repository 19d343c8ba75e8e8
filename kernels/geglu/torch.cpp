// geglu's torch reference and baseline (kernels/common/torch_gated.hpp) with the gate at::gelu with
// approximate = "none": the erf form.

#include "../common/torch_gated.hpp"

namespace kbench::kernels {

namespace {
at::Tensor gelu(const at::Tensor& b) {
  return at::gelu(b);
}
at::Tensor& gelu_out(at::Tensor& y, const at::Tensor& b) {
  return at::gelu_out(y, b);
}
}  // namespace

// The torch reference and baseline of the kernel in geglu.cpp (built with libtorch only).
KBENCH_KERNEL_EXTENSION(geglu_torch) {
  return kernel_builder("geglu")
      .reference(&torch_gated::reference<&gelu>)
      .implement(backend_kind::torch, &torch_gated::bind_torch<&gelu_out>, {},
                 "at::gelu_out into the preallocated output + at::mul_out in place (no temporary)");
}

}  // namespace kbench::kernels
