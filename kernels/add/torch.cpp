// add's torch reference and baseline (at::add_out into a preallocated output: compares kernels, not
// allocators).

#include <kbench/suite/registry.hpp>

#include "suite/torch/torch_glue.hpp"

#include "add.hpp"

namespace kbench::kernels {

namespace {

std::vector<host_tensor> reference(const std::vector<host_tensor>& inputs) {
  return {torch_glue::to_host(at::add(torch_glue::view(inputs.at(0)), torch_glue::view(inputs.at(1))))};
}

launcher bind_torch(const kernel_args& args) {
  buffer_ptr output =
      output_buffer(args, 0, static_cast<std::size_t>(element_count(args.shape)) * sizeof(float));
  at::Tensor x = torch_glue::view(args.inputs.at(0), args.shape);
  at::Tensor y = torch_glue::view(args.inputs.at(1), args.shape);
  at::Tensor z = torch_glue::view(output, args.shape);
  return torch_glue::synchronous_launcher(args, [x, y, z]() mutable { at::add_out(z, x, y); }, {output});
}

}  // namespace

// The torch reference and baseline of the kernel in add.cpp (built with libtorch only).
KBENCH_KERNEL_EXTENSION(add_torch) {
  return kernel_builder("add")
      .reference(&reference)
      .implement(backend_kind::torch, &bind_torch, {}, "at::add_out into a preallocated output");
}

}  // namespace kbench::kernels
