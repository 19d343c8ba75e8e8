// low_mem_dropout on the cpu backend: a parallel loop over the thread pool, GRAIN elements per chunk at least.
// The hash is plain 32-bit integer arithmetic in a contiguous loop, which the compiler vectorizes.

#include <kbench/backends/cpu.hpp>
#include <kbench/error.hpp>

#include "low_mem_dropout.hpp"

#include <cstdint>

namespace kbench::kernels {

launcher bind_low_mem_dropout_cpu(const kernel_args& args) {
  auto device = std::dynamic_pointer_cast<cpu::cpu_device>(args.device);
  if (!device) {
    KBENCH_THROW("low_mem_dropout/cpu needs a cpu device, got {}",
                 args.device ? to_string(args.device->info().backend) : "no device");
  }
  if (args.inputs.size() != 2) KBENCH_THROW("low_mem_dropout/cpu takes 2 inputs, got {}", args.inputs.size());
  const auto n = static_cast<std::size_t>(element_count(args.shape));  // [elements]
  if (n > std::size_t{1} << 32) KBENCH_THROW("low_mem_dropout/cpu: {} elements do not fit a uint32 index", n);
  const auto grain = static_cast<std::size_t>(args.config.at("GRAIN"));  // [elements per chunk, at least]
  if (grain == 0) KBENCH_THROW("low_mem_dropout/cpu: GRAIN must be positive");
  if (args.inputs[0]->size_bytes() < n * sizeof(float) || args.inputs[1]->size_bytes() < sizeof(float)) {
    KBENCH_THROW("low_mem_dropout/cpu: inputs hold {} and {} bytes, shape {} needs {} and {}",
                 args.inputs[0]->size_bytes(), args.inputs[1]->size_bytes(), to_string(args.shape),
                 n * sizeof(float), sizeof(float));
  }
  buffer_ptr input = args.inputs[0];
  buffer_ptr seed_buffer = args.inputs[1];
  buffer_ptr output = device->allocate(n * sizeof(float));
  return [device, input, seed_buffer, output, n, grain]() {
    const float* x = cpu::float_data(input);
    const float* seed_value = cpu::float_data(seed_buffer);
    float* y = cpu::float_data(output);
    event_ptr done = device->launch([=](const cpu::parallel_context& ctx) {
      // The seed is read when the kernel runs, like a device kernel would (an exact integer below 2^24).
      const auto seed = static_cast<std::uint32_t>(seed_value[0]);
      ctx.parallel_for(n, grain, [=](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) {
          const bool keep = low_mem_dropout_keep(seed, static_cast<std::uint32_t>(i));
          y[i] = keep ? x[i] / (1.0f - low_mem_dropout_p) : 0.0f;
        }
      });
    });
    return call_result{{done}, {output}};
  };
}

}  // namespace kbench::kernels
