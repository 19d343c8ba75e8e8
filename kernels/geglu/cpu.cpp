// geglu on the cpu backend: out = a * gelu(b) row by row over W-float vectors (kernels/common/cpu_simd.hpp),
// in one pass over x (torch's baseline makes two: gelu, then the product). libm's erff is a call per element
// that stops vectorization, so gelu is computed with plain arithmetic: torch's erf approximation with the
// polynomial exp of cpu_simd.hpp. Config: ISA = the vector instructions (sse2, avx2, avx512: 4, 8 or 16
// lanes); ROWS = rows per task of the dynamically scheduled parallel loop (ROWS >= M runs serially on the
// stream's thread, without waking the pool); STREAM = 1 writes the output with non-temporal stores (saves the
// read-for-ownership once it is too large for the cache).

#include <kbench/backends/cpu.hpp>
#include <kbench/error.hpp>

#include "../common/cpu_simd.hpp"
#include "geglu.hpp"

#include <bit>
#include <cstddef>
#include <cstdint>

namespace kbench::kernels {

namespace {

using rows_fn = void (*)(const float* x, float* y, std::size_t first, std::size_t last, std::size_t cols,
                         bool stream);

/// gelu(b) = b / 2 * (1 + erf(x)), x = b / sqrt(2), with erf by Abramowitz & Stegun 7.1.26, the formula of
/// torch's own vectorized erf: for z = |x|, t = 1 / (1 + p z), 1 - erf(z) = q = t * poly(t) * exp(-z^2), with
/// |error| <= 1.5e-7. Then 1 + erf(x) = 2 - q for x >= 0 and q for x < 0, computed directly (torch forms
/// 1 + (-(1 - q)) and loses q's low bits in the negative tail). About 35 vector operations per vector.
template <int W>
[[gnu::always_inline]] inline simd::f32v<W> gelu(const simd::f32v<W>& b) {
  using v = simd::f32v<W>;
  const v x = b * 0.70710678118654752f;                                        // b / sqrt(2)
  const v z = std::bit_cast<v>(std::bit_cast<simd::i32v<W>>(x) & 0x7FFFFFFF);  // |x|
  const v t = 1.0f / (z * 0.3275911f + 1.0f);
  v poly = t * 1.061405429f - 1.453152027f;
  poly = poly * t + 1.421413741f;
  poly = poly * t - 0.284496736f;
  poly = poly * t + 0.254829592f;
  // exp(-z^2) below 1.2e-38 (|x| > 9.3) reads as 1.2e-38: q stays ~1e-38, far below an ulp of the output.
  const v q = poly * t * simd::exp_clamped<W>(-(x * x));
  const v one_plus_erf = x < 0.0f ? q : 2.0f - q;
  return b * 0.5f * one_plus_erf;
}

/// Rows [first, last) of out [M, N] from x [M, 2N].
template <int W>
[[gnu::always_inline]] inline void geglu_rows(const float* x, float* y, std::size_t first, std::size_t last,
                                              std::size_t cols, bool stream) {
  for (std::size_t r = first; r < last; ++r) {
    const float* a = x + r * 2 * cols;
    simd::map<W>(
        y + r * cols, a, a + cols, 0, cols, stream,
        [](const simd::f32v<W>& av, const simd::f32v<W>& bv, std::size_t)
            __attribute__((always_inline)) { return av * gelu<W>(bv); });
  }
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
  const std::int64_t stream = args.config.count("STREAM") ? args.config.at("STREAM") : 0;
  if (stream != 0 && stream != 1) KBENCH_THROW("geglu/cpu: STREAM must be 0 or 1, got {}", stream);
  const rows_fn run = select(simd::isa_of(args.config, "geglu/cpu"));
  if (args.inputs[0]->size_bytes() < rows * 2 * cols * sizeof(float)) {
    KBENCH_THROW("geglu/cpu: input holds {} bytes, output shape {} needs {}", args.inputs[0]->size_bytes(),
                 to_string(args.shape), rows * 2 * cols * sizeof(float));
  }
  buffer_ptr input = args.inputs[0];
  buffer_ptr output = device->allocate(rows * cols * sizeof(float));
  return [device, input, output, rows, cols, task, run, stream = stream != 0]() {
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
