// A spec kernel on the opencl backend: the source built with the config as -D defines (as Kernel Tuner
// passes tuning parameters), the arguments set once, one clEnqueueNDRangeKernel per call.

#include <kbench/build_config.hpp>

#if KBENCH_HAS_OPENCL

#include <kbench/backends/opencl.hpp>
#include <kbench/error.hpp>

#include "spec/detail/spec_binding.hpp"

namespace kbench::spec::detail {
using namespace kbench::suite;  // the suite's kernel API, unqualified

launcher bind_opencl(const std::shared_ptr<const kernel_spec>& spec, const kernel_args& args) {
  auto* device = dynamic_cast<opencl::opencl_device*>(args.device.get());
  if (device == nullptr)
    KBENCH_THROW("kernel '{}': the opencl implementation needs an opencl device", spec->name);
  const bindings values = expression_values(*spec, args);
  const launch_geometry geometry = evaluate_launch(*spec, values);
  opencl::opencl_kernel kernel =
      device->build_program(spec->opencl->text, args.config).kernel(spec->opencl->entry);
  std::vector<buffer_ptr> outputs = spec_outputs(*spec, args);
  set_arguments(kernel, *spec, args, outputs, values);
  return [kernel, geometry, outputs]() mutable {
    return call_result{{kernel.launch(geometry.global, geometry.local)}, outputs};
  };
}

}  // namespace kbench::spec::detail

#endif  // KBENCH_HAS_OPENCL
