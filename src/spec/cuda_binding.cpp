// A spec kernel on the cuda backend: the source compiled by NVRTC with the config as -D defines, the
// arguments set once, one launch per call with grid = global / local blocks.

#include <kbench/build_config.hpp>

#if KBENCH_HAS_CUDA

#include <kbench/backends/cuda.hpp>
#include <kbench/error.hpp>

#include "spec/detail/spec_binding.hpp"

namespace kbench::spec::detail {
using namespace kbench::suite;  // the suite's kernel API, unqualified

launcher bind_cuda(const std::shared_ptr<const kernel_spec>& spec, const kernel_args& args) {
  auto* device = dynamic_cast<cuda::cuda_device*>(args.device.get());
  if (device == nullptr) KBENCH_THROW("kernel '{}': the cuda implementation needs a cuda device", spec->name);
  const bindings values = expression_values(*spec, args);
  const launch_geometry geometry = evaluate_launch(*spec, values);
  std::array<unsigned, 3> grid{1, 1, 1}, block{1, 1, 1};
  for (std::size_t d = 0; d < geometry.global.size(); ++d) {
    block[d] = static_cast<unsigned>(geometry.local[d]);
    grid[d] = static_cast<unsigned>(geometry.global[d] / geometry.local[d]);
  }
  cuda::cuda_function function =
      device->build_module(spec->cuda->text, args.config).function(spec->cuda->entry);
  std::vector<buffer_ptr> outputs = spec_outputs(*spec, args);
  set_arguments(function, *spec, args, outputs, values);
  return [function, grid, block, outputs]() mutable {
    return call_result{{function.launch(grid, block)}, outputs};
  };
}

}  // namespace kbench::spec::detail

#endif  // KBENCH_HAS_CUDA
