// add on the cpu backend: a parallel loop over the thread pool, GRAIN elements per chunk at least. Each chunk
// runs in blocks of 16 elements with restrict-qualified pointers, a shape that GCC's -O2 vectorizer (whose
// "very cheap" cost model refuses loops of unknown trip count and runtime alias checks) turns into SIMD code.

#include <kbench/backends/cpu.hpp>
#include <kbench/error.hpp>

#include "add.hpp"

#include <cstddef>

namespace kbench::kernels {

namespace {

constexpr std::size_t block = 16;  // [elements], 4 SSE / 2 AVX registers

void add_range(const float* __restrict x, const float* __restrict y, float* __restrict z, std::size_t n) {
  std::size_t i = 0;
  for (; i + block <= n; i += block) {
    for (std::size_t k = 0; k < block; ++k) z[i + k] = x[i + k] + y[i + k];
  }
  for (; i < n; ++i) z[i] = x[i] + y[i];
}

}  // namespace

launcher bind_add_cpu(const kernel_args& args) {
  auto device = std::dynamic_pointer_cast<cpu::cpu_device>(args.device);
  if (!device) {
    KBENCH_THROW("add/cpu needs a cpu device, got {}",
                 args.device ? to_string(args.device->info().backend) : "no device");
  }
  if (args.inputs.size() != 2) KBENCH_THROW("add/cpu takes 2 inputs, got {}", args.inputs.size());
  const auto n = static_cast<std::size_t>(element_count(args.shape));    // [elements]
  const auto grain = static_cast<std::size_t>(args.config.at("GRAIN"));  // [elements per chunk, at least]
  if (grain == 0) KBENCH_THROW("add/cpu: GRAIN must be positive");
  for (const buffer_ptr& input : args.inputs) {
    if (input->size_bytes() < n * sizeof(float)) {
      KBENCH_THROW("add/cpu: an input holds {} bytes, shape {} needs {}", input->size_bytes(),
                   to_string(args.shape), n * sizeof(float));
    }
  }
  buffer_ptr x_buffer = args.inputs[0];
  buffer_ptr y_buffer = args.inputs[1];
  buffer_ptr output = device->allocate(n * sizeof(float));
  return [device, x_buffer, y_buffer, output, n, grain]() {
    const float* x = cpu::float_data(x_buffer);
    const float* y = cpu::float_data(y_buffer);
    float* z = cpu::float_data(output);
    event_ptr done = device->launch([=](const cpu::parallel_context& ctx) {
      ctx.parallel_for(n, grain, [=](std::size_t begin, std::size_t end) {
        add_range(x + begin, y + begin, z + begin, end - begin);
      });
    });
    return call_result{{done}, {output}};
  };
}

}  // namespace kbench::kernels
