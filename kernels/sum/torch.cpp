// sum's torch reference and baseline (at::sum_out into a preallocated output: compares kernels, not
// allocators). The reference accumulates in float64 and rounds once to float32, i.e. it is the correctly
// rounded row sum (to within ~1e-12 relative), so the tolerance measures each implementation's own float32
// summation error rather than the difference between two summation orders.

#include <kbench/suite/registry.hpp>

#include "suite/torch/torch_glue.hpp"

#include "sum.hpp"

namespace kbench::kernels {

namespace {

std::vector<host_tensor> reference(const std::vector<host_tensor>& inputs) {
  const at::Tensor x = torch_glue::view(inputs.at(0));
  return {torch_glue::to_host(at::sum(x, {1}, false, at::kDouble).to(at::kFloat))};
}

launcher bind_torch(const kernel_args& args) {
  const std::int64_t rows = args.shape.at(0);
  buffer_ptr output = output_buffer(args, 0, static_cast<std::size_t>(rows) * sizeof(float));
  at::Tensor x = torch_glue::view(args.inputs.at(0), args.shape);
  at::Tensor y = torch_glue::view(output, {rows});
  return torch_glue::synchronous_launcher(args, [x, y]() mutable { at::sum_out(y, x, {1}); }, {output});
}

}  // namespace

// The torch reference and baseline of the kernel in sum.cpp (built with libtorch only).
KBENCH_KERNEL_EXTENSION(sum_torch) {
  return kernel_builder("sum")
      .reference(&reference)
      .implement(backend_kind::torch, &bind_torch, {}, "at::sum_out into a preallocated output");
}

}  // namespace kbench::kernels
