// geglu's torch reference and baseline. The baseline writes gelu(b) into the preallocated output with
// at::gelu_out, then multiplies by a in place with at::mul_out: no allocation per call, no temporary.

#include <kbench/suite/registry.hpp>

#include "suite/torch/torch_glue.hpp"

#include "geglu.hpp"

namespace kbench::kernels {

namespace {

std::vector<host_tensor> reference(const std::vector<host_tensor>& inputs) {
  const at::Tensor x = torch_glue::view(inputs.at(0));  // [M, 2N]
  const std::int64_t cols = x.size(1) / 2;
  const at::Tensor a = x.narrow(1, 0, cols);
  const at::Tensor b = x.narrow(1, cols, cols);
  return {torch_glue::to_host(a * at::gelu(b))};  // approximate = "none": the erf form
}

launcher bind_torch(const kernel_args& args) {
  const shape& out_shape = args.shape;  // [M, N]
  buffer_ptr output =
      output_buffer(args, 0, static_cast<std::size_t>(element_count(out_shape)) * sizeof(float));
  at::Tensor x = torch_glue::view(args.inputs.at(0), {out_shape.at(0), 2 * out_shape.at(1)});
  at::Tensor a = x.narrow(1, 0, out_shape[1]);
  at::Tensor b = x.narrow(1, out_shape[1], out_shape[1]);
  at::Tensor y = torch_glue::view(output, out_shape);
  return torch_glue::synchronous_launcher(
      [a, b, y]() mutable {
        at::gelu_out(y, b);
        at::mul_out(y, y, a);
      },
      {output});
}

}  // namespace

// The torch reference and baseline of the kernel in geglu.cpp (built with libtorch only).
KBENCH_KERNEL_EXTENSION(geglu_torch) {
  return kernel_builder("geglu")
      .reference(&reference)
      .implement(backend_kind::torch, &bind_torch, {},
                 "at::gelu_out into the preallocated output + at::mul_out in place (no temporary)");
}

}  // namespace kbench::kernels
