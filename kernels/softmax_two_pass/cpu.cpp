// softmax_two_pass on the cpu backend: rows split over the thread pool (GRAIN rows per chunk at least); each
// row is read twice: pass 1 keeps a running max and a running sum of exp(x - max) (rescaled when the max
// grows), pass 2 writes exp(x - max) / sum. The inner loops use GCC vector extensions (4 floats, one SSE
// register) with a polynomial exp: the build has no -ffast-math, so neither std::exp nor a clamp compare in a
// loop is auto-vectorized, and scalar expf would dominate the time. exp4 is accurate to ~1.5 ulp over the
// range used here.

#include <kbench/backends/cpu.hpp>
#include <kbench/error.hpp>

#include "softmax_two_pass.hpp"

#include "../common/cpu_row_softmax.hpp"

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace kbench::kernels {

using namespace cpu_row_softmax;  // row_stats, row_normalize (../common/cpu_row_softmax.hpp)

launcher bind_softmax_two_pass_cpu(const kernel_args& args) {
  auto device = std::dynamic_pointer_cast<cpu::cpu_device>(args.device);
  if (!device) {
    KBENCH_THROW("softmax_two_pass/cpu needs a cpu device, got {}",
                 args.device ? std::string(to_string(args.device->info().backend)) : std::string("none"));
  }
  if (args.shape.size() != 2 || args.shape[0] <= 0 || args.shape[1] <= 0) {
    KBENCH_THROW("softmax_two_pass/cpu: shape must be [M, N] with M, N > 0, got {}", to_string(args.shape));
  }
  if (args.inputs.size() != 1 || !args.inputs[0]) {
    KBENCH_THROW("softmax_two_pass/cpu takes 1 input, got {}", args.inputs.size());
  }
  const auto rows = static_cast<std::size_t>(args.shape[0]);
  const auto cols = static_cast<std::size_t>(args.shape[1]);
  const std::size_t bytes = rows * cols * sizeof(float);
  if (args.inputs[0]->size_bytes() < bytes) {
    KBENCH_THROW("softmax_two_pass/cpu: input holds {} bytes, shape {} needs {}",
                 args.inputs[0]->size_bytes(), to_string(args.shape), bytes);
  }
  const auto found = args.config.find("GRAIN");
  const std::int64_t grain = found == args.config.end() ? 8 : found->second;  // [rows per chunk, at least]
  if (grain <= 0) KBENCH_THROW("softmax_two_pass/cpu: GRAIN must be positive, got {}", grain);

  buffer_ptr input = args.inputs[0];
  buffer_ptr output = device->allocate(bytes);
  return [device, input, output, rows, cols, grain = static_cast<std::size_t>(grain)]() {
    const float* x = cpu::float_data(input);
    float* y = cpu::float_data(output);
    event_ptr done = device->launch([=](const cpu::parallel_context& ctx) {
      ctx.parallel_for(rows, grain, [=](std::size_t begin, std::size_t end) {
        for (std::size_t r = begin; r < end; ++r) {
          float max = 0;
          float sum = 0;
          row_max_and_sum(x + r * cols, cols, max, sum);
          row_normalize(x + r * cols, y + r * cols, cols, max, sum);
        }
      });
    });
    return call_result{{done}, {output}};
  };
}

}  // namespace kbench::kernels
