// geglu on the cpu backend: a parallel loop over rows, GRAIN rows per chunk at least; each row is one contiguous
// loop over a, b and out.

#include <kbench/backends/cpu.hpp>
#include <kbench/error.hpp>

#include "geglu.hpp"

#include <cmath>

namespace kbench::kernels {

namespace {

// gelu(b) = b / 2 * (1 + erf(b / sqrt(2))), the exact form (torch's approximate="none").
inline float gelu(float b) {
  constexpr float sqrt1_2 = 0.70710678118654752f;  // 1 / sqrt(2)
  return 0.5f * b * (1.0f + std::erf(b * sqrt1_2));
}

}  // namespace

launcher bind_geglu_cpu(const kernel_args& args) {
  auto device = std::dynamic_pointer_cast<cpu::cpu_device>(args.device);
  if (!device) {
    KBENCH_THROW("geglu/cpu needs a cpu device, got {}",
                 args.device ? to_string(args.device->info().backend) : "no device");
  }
  if (args.shape.size() != 2) KBENCH_THROW("geglu/cpu: shape {} is not [M, N]", to_string(args.shape));
  if (args.inputs.size() != 1) KBENCH_THROW("geglu/cpu takes 1 input, got {}", args.inputs.size());
  const auto rows = static_cast<std::size_t>(args.shape[0]);
  const auto cols = static_cast<std::size_t>(args.shape[1]);  // output columns N; the input row holds 2N
  const auto grain = static_cast<std::size_t>(args.config.at("GRAIN"));  // [rows per chunk, at least]
  if (grain == 0) KBENCH_THROW("geglu/cpu: GRAIN must be positive");
  if (args.inputs[0]->size_bytes() < rows * 2 * cols * sizeof(float)) {
    KBENCH_THROW("geglu/cpu: input holds {} bytes, output shape {} needs {}", args.inputs[0]->size_bytes(),
                 to_string(args.shape), rows * 2 * cols * sizeof(float));
  }
  buffer_ptr input = args.inputs[0];
  buffer_ptr output = device->allocate(rows * cols * sizeof(float));
  return [device, input, output, rows, cols, grain]() {
    const float* x = cpu::float_data(input);
    float* y = cpu::float_data(output);
    event_ptr done = device->launch([=](const cpu::parallel_context& ctx) {
      ctx.parallel_for(rows, grain, [=](std::size_t begin, std::size_t end) {
        for (std::size_t r = begin; r < end; ++r) {
          const float* a = x + r * 2 * cols;
          const float* b = a + cols;
          float* out = y + r * cols;
          for (std::size_t j = 0; j < cols; ++j) out[j] = a[j] * gelu(b[j]);
        }
      });
    });
    return call_result{{done}, {output}};
  };
}

}  // namespace kbench::kernels
