// exp on the cpu backend: a parallel loop over the thread pool, GRAIN elements per chunk at least.

#include <kbench/backends/cpu.hpp>
#include <kbench/error.hpp>

#include "exp.hpp"

#include <cmath>

namespace kbench::kernels {

launcher bind_exp_cpu(const kernel_args& args) {
  auto device = std::dynamic_pointer_cast<cpu::cpu_device>(args.device);
  if (!device) KBENCH_THROW("exp/cpu needs a cpu device, got {}", to_string(args.device->info().backend));
  const auto n = static_cast<std::size_t>(element_count(args.shape));
  const auto grain = static_cast<std::size_t>(args.config.at("GRAIN"));
  if (grain == 0) KBENCH_THROW("exp/cpu: GRAIN must be positive");
  buffer_ptr input = args.inputs.at(0);
  buffer_ptr output = device->allocate(n * sizeof(float));
  return [device, input, output, n, grain]() {
    const float* x = cpu::float_data(input);
    float* y = cpu::float_data(output);
    event_ptr done = device->launch([=](const cpu::parallel_context& ctx) {
      ctx.parallel_for(n, grain, [=](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) y[i] = std::exp(x[i]);
      });
    });
    return call_result{{done}, {output}};
  };
}

}  // namespace kbench::kernels
