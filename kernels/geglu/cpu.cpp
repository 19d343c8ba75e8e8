// geglu on the cpu backend: out = a * gelu(b) row by row over W-float vectors (kernels/common/cpu_simd.hpp),
// in one pass over x (torch's baseline makes two: gelu, then the product). libm's erff is a call per element
// that stops vectorization, so gelu is computed with plain arithmetic: a rational approximation of erf.
// Config: ISA = the vector instructions (sse2, avx2, avx512: 4, 8 or 16 lanes); ROWS = rows per task of the
// dynamically scheduled parallel loop (ROWS >= M runs serially on the stream's thread, without waking the
// pool); STREAM = 1 writes the output with non-temporal stores (saves the read-for-ownership once it is too
// large for the cache).

#include <kbench/backends/cpu.hpp>
#include <kbench/error.hpp>

#include "../common/cpu_simd.hpp"
#include "geglu.hpp"

#include <cstddef>
#include <cstdint>

namespace kbench::kernels {

namespace {

using rows_fn = void (*)(const float* x, float* y, std::size_t first, std::size_t last, std::size_t cols,
                         bool stream);

/// gelu(b) = b / 2 * (1 + erf(x)), x = b / sqrt(2), with erf(x) as the rational function x P(x^2) / Q(x^2)
/// (degrees 13 and 8) on x clamped to [-4, 4] (beyond, erf is +-1 to a float's precision), with the
/// coefficients of Eigen's float erf: |error| <= 3.9e-7 for |x| <= 2.83 (the suite's inputs, b in [-4, 4))
/// against erf in double. 19 vector operations, one a division. Torch's formula (Abramowitz & Stegun 7.1.26,
/// |error| <= 1.5e-7, used here before) takes about 35 with a division and an exp, which kept this kernel
/// compute-bound (docs/code-figures.md).

/// Like torch's, it forms 1 + erf(x) and so loses relative accuracy in gelu's negative tail, where erf ~ -1
/// (see the tolerance in geglu.cpp).
template <int W>
[[gnu::always_inline]] inline simd::f32v<W> gelu(const simd::f32v<W>& b) {
  using v = simd::f32v<W>;
  const v x = simd::clamp_keeping_nan<W>(b * 0.70710678118654752f, v{} - 4.0f, v{} + 4.0f);  // b / sqrt(2)
  const v x2 = x * x;
  v p = x2 * -2.72614225801306e-10f + 2.77068142495902e-08f;
  p = p * x2 - 2.10102402082508e-06f;
  p = p * x2 - 5.69250639462346e-05f;
  p = p * x2 - 7.34990630326855e-04f;
  p = p * x2 - 2.95459980854025e-03f;
  p = p * x2 - 1.60960333262415e-02f;
  v q = x2 * -1.45660718464996e-05f - 2.13374055278905e-04f;
  q = q * x2 - 1.68282697438203e-03f;
  q = q * x2 - 7.37332916720468e-03f;
  q = q * x2 - 1.42647390514189e-02f;
  return b * 0.5f * (x * p / q + 1.0f);
}

/// Rows [first, last) of out [M, N] = a * gelu(b) from x [M, 2N] (simd::gated_rows).
template <int W>
[[gnu::always_inline]] inline void geglu_rows(const float* x, float* y, std::size_t first, std::size_t last,
                                              std::size_t cols, bool stream) {
  simd::gated_rows<W>(
      x, y, first, last, cols, stream,
      [](const simd::f32v<W>& b) __attribute__((always_inline)) { return gelu<W>(b); });
}

void rows_sse2(const float* x, float* y, std::size_t first, std::size_t last, std::size_t cols, bool stream) {
  geglu_rows<4>(x, y, first, last, cols, stream);
}
[[KBENCH_TARGET_AVX2]] void rows_avx2(const float* x, float* y, std::size_t first, std::size_t last,
                                      std::size_t cols, bool stream) {
  geglu_rows<8>(x, y, first, last, cols, stream);
}
[[KBENCH_TARGET_AVX512]] void rows_avx512(const float* x, float* y, std::size_t first, std::size_t last,
                                          std::size_t cols, bool stream) {
  geglu_rows<16>(x, y, first, last, cols, stream);
}

rows_fn select(simd::isa which) {
  static constexpr rows_fn table[3] = {&rows_sse2, &rows_avx2, &rows_avx512};
  return table[static_cast<std::size_t>(which)];
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
  const auto cols = static_cast<std::size_t>(args.shape[1]);  // output columns N; an input row holds 2N
  const std::size_t task = simd::positive(args.config, "ROWS", 16, "geglu/cpu");  // [rows per task]
  const bool stream = simd::stream_of(args.config, "geglu/cpu");
  const rows_fn run = select(simd::isa_of(args.config, "geglu/cpu"));
  if (args.inputs[0]->size_bytes() < rows * 2 * cols * sizeof(float)) {
    KBENCH_THROW("geglu/cpu: input holds {} bytes, output shape {} needs {}", args.inputs[0]->size_bytes(),
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
