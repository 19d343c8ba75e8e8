// softmax_two_pass on the cpu backend: rows in tasks of GRAIN rows, taken by the workers from a shared
// counter (simd::for_tasks); two passes per row: pass 1 keeps a reference m near the running max (raised when
// a value exceeds it by more than 8) and a running sum of exp(x - m) (rescaled when m is raised) and stores
// the exps into y, pass 2 rescales y to exp(x - m) / sum
// (../common/cpu_row_softmax.hpp: vectors of W floats by the ISA parameter, UNROLL vectors per step of pass
// 1, a polynomial exp of ~1.5 ulp; STREAM = 1 keeps the exps in a per-thread row buffer and writes y once,
// with non-temporal stores).

#include <kbench/backends/cpu.hpp>
#include <kbench/error.hpp>

#include "softmax_two_pass.hpp"

#include "../common/cpu_row_softmax.hpp"

#include <cstddef>

namespace kbench::kernels {

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
  const std::size_t grain =
      simd::positive(args.config, "GRAIN", 8, "softmax_two_pass/cpu");  // [rows per task]
  const std::size_t unroll =
      simd::positive(args.config, "UNROLL", 2, "softmax_two_pass/cpu");  // [vectors per step]
  if (unroll != 1 && unroll != 2 && unroll != 4) {
    KBENCH_THROW("softmax_two_pass/cpu: UNROLL must be 1, 2 or 4, got {}", unroll);
  }
  const cpu_row_softmax::rows_fn run =
      cpu_row_softmax::select(simd::isa_of(args.config, "softmax_two_pass/cpu"), unroll);
  const bool stream = simd::stream_of(args.config, "softmax_two_pass/cpu");

  buffer_ptr input = args.inputs[0];
  buffer_ptr output = output_buffer(args, 0, bytes);
  return [device, input, output, rows, cols, grain, run, stream]() {
    const float* x = cpu::float_data(input);
    float* y = cpu::float_data(output);
    event_ptr done = device->launch([=](const cpu::parallel_context& ctx) {
      simd::for_tasks(ctx, rows, grain,
                      [=](std::size_t begin, std::size_t end) { run(x, y, cols, begin, end, stream); });
    });
    return call_result{{done}, {output}};
  };
}

}  // namespace kbench::kernels
