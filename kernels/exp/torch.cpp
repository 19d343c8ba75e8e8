// exp's torch reference and baseline (at::exp_out into a preallocated output: compares kernels, not
// allocators).

#include "suite/torch/torch_glue.hpp"

#include "exp.hpp"

namespace kbench::kernels {

std::vector<host_tensor> exp_reference(const std::vector<host_tensor>& inputs) {
  return {torch_glue::to_host(at::exp(torch_glue::view(inputs.at(0))))};
}

launcher bind_exp_torch(const kernel_args& args) {
  buffer_ptr output =
      output_buffer(args, 0, static_cast<std::size_t>(element_count(args.shape)) * sizeof(float));
  at::Tensor x = torch_glue::view(args.inputs.at(0), args.shape);
  at::Tensor y = torch_glue::view(output, args.shape);
  return torch_glue::synchronous_launcher([x, y]() mutable { at::exp_out(y, x); }, {output});
}

}  // namespace kbench::kernels
