// add's torch reference and baseline (at::add_out into a preallocated output: compares kernels, not
// allocators).

#include "suite/torch/torch_glue.hpp"

#include "add.hpp"

namespace kbench::kernels {

std::vector<host_tensor> add_reference(const std::vector<host_tensor>& inputs) {
  return {torch_glue::to_host(at::add(torch_glue::view(inputs.at(0)), torch_glue::view(inputs.at(1))))};
}

launcher bind_add_torch(const kernel_args& args) {
  buffer_ptr output =
      output_buffer(args, 0, static_cast<std::size_t>(element_count(args.shape)) * sizeof(float));
  at::Tensor x = torch_glue::view(args.inputs.at(0), args.shape);
  at::Tensor y = torch_glue::view(args.inputs.at(1), args.shape);
  at::Tensor z = torch_glue::view(output, args.shape);
  return torch_glue::synchronous_launcher([x, y, z]() mutable { at::add_out(z, x, y); }, {output});
}

}  // namespace kbench::kernels
