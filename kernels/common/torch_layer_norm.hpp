#pragma once
// The torch reference (at::layer_norm) and baseline of the layer norms (layer_norm, welford): at::
// native_layer_norm_out into a preallocated y (and preallocated mean/rstd [M, 1]). libtorch 1.13 has no
// hand-written out= kernel for layer norm: this is ATen's generated out= wrapper, which runs the functional
// kernel into temporaries and copies them into the outputs. Included only by the kernels' torch.cpp.

#include <kbench/suite/registry.hpp>

#include "suite/torch/torch_glue.hpp"

#include <string>

namespace kbench::kernels::torch_layer_norm {

inline std::vector<host_tensor> reference(const std::vector<host_tensor>& inputs) {
  const at::Tensor x = torch_glue::view(inputs.at(0));
  return {torch_glue::to_host(
      at::layer_norm(x, {x.size(-1)}, torch_glue::view(inputs.at(1)), torch_glue::view(inputs.at(2)), 1e-5))};
}

inline launcher bind_torch(const kernel_args& args) {
  buffer_ptr output =
      output_buffer(args, 0, static_cast<std::size_t>(element_count(args.shape)) * sizeof(float));
  const std::int64_t cols = args.shape.back();
  at::Tensor x = torch_glue::view(args.inputs.at(0), args.shape);
  at::Tensor w = torch_glue::view(args.inputs.at(1), {cols});
  at::Tensor b = torch_glue::view(args.inputs.at(2), {cols});
  at::Tensor y = torch_glue::view(output, args.shape);
  at::Tensor mean = at::empty({element_count(args.shape) / cols, 1}, x.options());
  at::Tensor rstd = at::empty_like(mean);
  return torch_glue::synchronous_launcher(args,
                                          [x, w, b, y, mean, rstd, cols]() mutable {
                                            at::native_layer_norm_out(y, mean, rstd, x, {cols}, w, b, 1e-5);
                                          },
                                          {output});
}

/// What a layer norm kernel called `name` adds to its registration (KBENCH_KERNEL_EXTENSION).
inline kernel_builder extension(std::string name) {
  kernel_builder builder(std::move(name));
  builder.reference(&reference)
      .implement(backend_kind::torch, &bind_torch, {},
                 "at::native_layer_norm_out into preallocated y, mean, rstd (ATen's generated out= wrapper: "
                 "it computes into temporaries and copies)");
  return builder;
}

}  // namespace kbench::kernels::torch_layer_norm
