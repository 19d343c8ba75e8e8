// bmm's torch reference (at::bmm) and baseline (at::bmm_out into a preallocated output: compares kernels, not
// allocators).

#include <kbench/suite/registry.hpp>

#include "suite/torch/torch_glue.hpp"

#include "bmm.hpp"

namespace kbench::kernels {

namespace {

std::vector<host_tensor> reference(const std::vector<host_tensor>& inputs) {
  return {torch_glue::to_host(at::bmm(torch_glue::view(inputs.at(0)), torch_glue::view(inputs.at(1))))};
}

launcher bind_torch(const kernel_args& args) {
  const bmm_dims d = parse_bmm_shape(args.shape, "bmm/torch");
  buffer_ptr output = output_buffer(args, 0, static_cast<std::size_t>(d.batch * d.m * d.n) * sizeof(float));
  at::Tensor a = torch_glue::view(args.inputs.at(0), {d.batch, d.m, d.k});
  at::Tensor b = torch_glue::view(args.inputs.at(1), {d.batch, d.k, d.n});
  at::Tensor c = torch_glue::view(output, {d.batch, d.m, d.n});
  return torch_glue::synchronous_launcher(args, [a, b, c]() mutable { at::bmm_out(c, a, b); }, {output});
}

}  // namespace

// The torch reference and baseline of the kernel in bmm.cpp (built with libtorch only).
KBENCH_KERNEL_EXTENSION(bmm_torch) {
  return kernel_builder("bmm")
      .reference(&reference)
      .implement(backend_kind::torch, &bind_torch, {}, "at::bmm_out into a preallocated output");
}

}  // namespace kbench::kernels
