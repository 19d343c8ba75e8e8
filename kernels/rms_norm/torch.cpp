// rms_norm's torch reference and baseline. libtorch 1.13 has no rms_norm, so both are composed. The reference
// is the textbook formula, x * rsqrt(mean(x^2) + eps) * w. The baseline avoids any [M, N] temporary (compares
// kernels, not allocators): the row norms ||x||_2 go into a preallocated [M, 1], which becomes
// rsqrt(||x||^2 / N + eps) in place; then y = x * that (at::mul_out into the preallocated y) and y *= w in
// place.

#include <kbench/suite/registry.hpp>

#include "suite/torch/torch_glue.hpp"

#include "rms_norm.hpp"

namespace kbench::kernels {

namespace {
constexpr double eps = 1e-6;
}

namespace {

std::vector<host_tensor> reference(const std::vector<host_tensor>& inputs) {
  const at::Tensor x = torch_glue::view(inputs.at(0));
  const at::Tensor w = torch_glue::view(inputs.at(1));
  return {torch_glue::to_host(x * at::rsqrt(x.pow(2).mean(-1, /*keepdim=*/true) + eps) * w)};
}

launcher bind_torch(const kernel_args& args) {
  buffer_ptr output =
      output_buffer(args, 0, static_cast<std::size_t>(element_count(args.shape)) * sizeof(float));
  const std::int64_t cols = args.shape.back();
  at::Tensor x = torch_glue::view(args.inputs.at(0), args.shape);
  at::Tensor w = torch_glue::view(args.inputs.at(1), {cols});
  at::Tensor y = torch_glue::view(output, args.shape);
  at::Tensor scale = at::empty({element_count(args.shape) / cols, 1}, x.options());  // [M, 1]
  return torch_glue::synchronous_launcher(args,
                                          [x, w, y, scale, cols]() mutable {
                                            at::linalg_vector_norm_out(scale, x, 2, at::IntArrayRef{-1},
                                                                       /*keepdim=*/true);
                                            scale.pow_(2).div_(static_cast<double>(cols)).add_(eps).rsqrt_();
                                            at::mul_out(y, x, scale);
                                            y.mul_(w);
                                          },
                                          {output});
}

}  // namespace

// The torch reference and baseline of the kernel in rms_norm.cpp (built with libtorch only).
KBENCH_KERNEL_EXTENSION(rms_norm_torch) {
  return kernel_builder("rms_norm")
      .reference(&reference)
      .implement(backend_kind::torch, &bind_torch, {},
                 "composed, no out= variant: at::linalg_vector_norm_out into a preallocated [M, 1], in-place "
                 "pow_/div_/add_/rsqrt_ on it, at::mul_out into the preallocated y, then y.mul_(w); no [M, "
                 "N] temporary");
}

}  // namespace kbench::kernels
