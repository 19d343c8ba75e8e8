#pragma once
// The torch reference (at::softmax over the last dimension) and baseline (at::_softmax_out into a
// preallocated output: compares kernels, not allocators) of the row softmaxes (softmax_two_pass,
// batch_softmax). Included only by the kernels' torch.cpp.

#include <kbench/suite/registry.hpp>

#include "suite/torch/torch_glue.hpp"

#include <string>

namespace kbench::kernels::torch_softmax {

inline std::vector<host_tensor> reference(const std::vector<host_tensor>& inputs) {
  return {torch_glue::to_host(at::softmax(torch_glue::view(inputs.at(0)), -1))};
}

inline launcher bind_torch(const kernel_args& args) {
  buffer_ptr output =
      output_buffer(args, 0, static_cast<std::size_t>(element_count(args.shape)) * sizeof(float));
  at::Tensor x = torch_glue::view(args.inputs.at(0), args.shape);
  at::Tensor y = torch_glue::view(output, args.shape);
  return torch_glue::synchronous_launcher(args, [x, y]() mutable { at::_softmax_out(y, x, -1, false); },
                                          {output});
}

/// What a row softmax kernel called `name` adds to its registration (KBENCH_KERNEL_EXTENSION).
inline kernel_builder extension(std::string name) {
  kernel_builder builder(std::move(name));
  builder.reference(&reference)
      .implement(backend_kind::torch, &bind_torch, {}, "at::_softmax_out into a preallocated output");
  return builder;
}

}  // namespace kbench::kernels::torch_softmax
