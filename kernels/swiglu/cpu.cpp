// swiglu on the cpu backend: out = a * silu(b) row by row over W-float vectors (kernels/common/cpu_simd.hpp),
// in one pass over x (torch's baseline makes two: silu, then the product). libm's expf is a call per element
// that stops vectorization, so silu uses the polynomial exp of cpu_simd.hpp. Config: ISA = the vector
// instructions (sse2, avx2, avx512: 4, 8 or 16 lanes); ROWS = rows per task of the dynamically scheduled
// parallel loop (ROWS >= M runs serially on the stream's thread, without waking the pool); STREAM = 1 writes
// the output with non-temporal stores (saves the read-for-ownership once it is too large for the cache).

#include <kbench/backends/cpu.hpp>
#include <kbench/error.hpp>

#include "../common/cpu_simd.hpp"
#include "swiglu.hpp"

#include <cstddef>
#include <cstdint>

namespace kbench::kernels {

namespace {

using rows_fn = void (*)(const float* x, float* y, std::size_t first, std::size_t last, std::size_t cols,
                         bool stream);

/// silu(b) = b / (1 + exp(-b)), relative error < 3e-7 (simd::exp's degree-5 polynomial: 1.7e-7). exp(-b) is
/// clamped to [1.6e-38, 1.7e38]: silu(b) = b for b > 87, and ~b * 6e-39 for b < -88, where b * exp(b) is
/// smaller still: both far inside the tolerance (1e-5 absolute).
template <int W>
[[gnu::always_inline]] inline simd::f32v<W> silu(const simd::f32v<W>& b) {
  return b / (simd::exp<W>(-b) + 1.0f);
}

/// Rows [first, last) of out [M, N] = a * silu(b) from x [M, 2N] (simd::gated_rows).
template <int W>
[[gnu::always_inline]] inline void swiglu_rows(const float* x, float* y, std::size_t first, std::size_t last,
                                               std::size_t cols, bool stream) {
  simd::gated_rows<W>(
      x, y, first, last, cols, stream,
      [](const simd::f32v<W>& b) __attribute__((always_inline)) { return silu<W>(b); });
}

void rows_sse2(const float* x, float* y, std::size_t first, std::size_t last, std::size_t cols, bool stream) {
  swiglu_rows<4>(x, y, first, last, cols, stream);
}
[[KBENCH_TARGET_AVX2]] void rows_avx2(const float* x, float* y, std::size_t first, std::size_t last,
                                      std::size_t cols, bool stream) {
  swiglu_rows<8>(x, y, first, last, cols, stream);
}
[[KBENCH_TARGET_AVX512]] void rows_avx512(const float* x, float* y, std::size_t first, std::size_t last,
                                          std::size_t cols, bool stream) {
  swiglu_rows<16>(x, y, first, last, cols, stream);
}

rows_fn select(simd::isa which) {
  static constexpr rows_fn table[3] = {&rows_sse2, &rows_avx2, &rows_avx512};
  return table[static_cast<std::size_t>(which)];
}

}  // namespace

launcher bind_swiglu_cpu(const kernel_args& args) {
  auto device = std::dynamic_pointer_cast<cpu::cpu_device>(args.device);
  if (!device) {
    KBENCH_THROW("swiglu/cpu needs a cpu device, got {}",
                 args.device ? to_string(args.device->info().backend) : "no device");
  }
  if (args.shape.size() != 2) KBENCH_THROW("swiglu/cpu: shape {} is not [M, N]", to_string(args.shape));
  if (args.inputs.size() != 1) KBENCH_THROW("swiglu/cpu takes 1 input, got {}", args.inputs.size());
  const auto rows = static_cast<std::size_t>(args.shape[0]);
  const auto cols = static_cast<std::size_t>(args.shape[1]);  // output columns N; an input row holds 2N
  const std::size_t task = simd::positive(args.config, "ROWS", 16, "swiglu/cpu");  // [rows per task]
  const bool stream = simd::stream_of(args.config, "swiglu/cpu");
  const rows_fn run = select(simd::isa_of(args.config, "swiglu/cpu"));
  if (args.inputs[0]->size_bytes() < rows * 2 * cols * sizeof(float)) {
    KBENCH_THROW("swiglu/cpu: input holds {} bytes, output shape {} needs {}", args.inputs[0]->size_bytes(),
                 to_string(args.shape), rows * 2 * cols * sizeof(float));
  }
  buffer_ptr input = args.inputs[0];
  buffer_ptr output = output_buffer(args, 0, rows * cols * sizeof(float));
  return [device, input, output, rows, cols, task, run, stream]() {
    const float* x = cpu::float_data(input);
    float* y = cpu::float_data(output);
    event_ptr done = device->launch([=](const cpu::parallel_context& ctx) {
      simd::for_tasks(ctx, rows, task,
                      [=](std::size_t first, std::size_t last) { run(x, y, first, last, cols, stream); });
    });
    return call_result{{done}, {output}};
  };
}

}  // namespace kbench::kernels
