#pragma once
// The torch reference and baseline of the gated linear units (geglu, swiglu): out = a * gate(b) for
// x [M, 2N] = [a | b]. The baseline writes gate(b) into the preallocated output with the gate's out= variant,
// then multiplies by a in place with at::mul_out: no allocation per call, no temporary. Included only by the
// kernels' torch.cpp.

#include <kbench/suite/registry.hpp>

#include "suite/torch/torch_glue.hpp"

namespace kbench::kernels::torch_gated {

template <at::Tensor (*gate)(const at::Tensor&)>
std::vector<host_tensor> reference(const std::vector<host_tensor>& inputs) {
  const at::Tensor x = torch_glue::view(inputs.at(0));  // [M, 2N]
  const std::int64_t cols = x.size(1) / 2;
  const at::Tensor a = x.narrow(1, 0, cols);
  const at::Tensor b = x.narrow(1, cols, cols);
  return {torch_glue::to_host(a * gate(b))};
}

template <at::Tensor& (*gate_out)(at::Tensor&, const at::Tensor&)>
launcher bind_torch(const kernel_args& args) {
  const shape& out_shape = args.shape;  // [M, N]
  buffer_ptr output =
      output_buffer(args, 0, static_cast<std::size_t>(element_count(out_shape)) * sizeof(float));
  at::Tensor x = torch_glue::view(args.inputs.at(0), {out_shape.at(0), 2 * out_shape.at(1)});
  at::Tensor a = x.narrow(1, 0, out_shape[1]);
  at::Tensor b = x.narrow(1, out_shape[1], out_shape[1]);
  at::Tensor y = torch_glue::view(output, out_shape);
  return torch_glue::synchronous_launcher(args,
                                          [a, b, y]() mutable {
                                            gate_out(y, b);
                                            at::mul_out(y, y, a);
                                          },
                                          {output});
}

}  // namespace kbench::kernels::torch_gated
