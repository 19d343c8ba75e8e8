// rms_norm on the cpu backend: rows in tasks of GRAIN rows, taken by the workers from a shared counter
// (simd::for_tasks). Per row, the sum of squares in UNROLL vectors of W float lanes (W by the ISA parameter:
// 4 SSE2, 8 AVX2, 16 AVX-512; the independent lanes hide the add latency and shorten the rounding chains),
// added pairwise at the end, then y = x * rstd * w with rstd = 1 / sqrt(sum / N + eps). The row (<= 16 KiB
// here) is still in L1/L2 for the second pass, which also asks for the task's next row
// (simd::prefetch_next_row). STREAM = 1 writes y with non-temporal stores (cpu_simd.hpp write_vectors).

#include <kbench/backends/cpu.hpp>
#include <kbench/error.hpp>

#include "../common/binding_checks.hpp"
#include "rms_norm.hpp"

#include "../common/cpu_simd.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>

namespace kbench::kernels {

namespace {

using namespace simd;  // f32v, load, store, hsum, write_vectors (../common/cpu_simd.hpp)

constexpr float eps = 1e-6f;

template <int W, int U>
[[gnu::always_inline]] inline float row_sum_of_squares(const float* x, std::size_t n) {
  constexpr std::size_t step = std::size_t{W} * U;  // [floats]
  f32v<W> acc[U] = {};
  std::size_t i = 0;
  for (; i + step <= n; i += step) {
#pragma GCC unroll 4
    for (int u = 0; u < U; ++u) {
      const f32v<W> v = load<W>(x + i + std::size_t{W} * u);
      acc[u] += v * v;
    }
  }
  fold<W, U>(acc);
  for (; i + W <= n; i += W) {
    const f32v<W> v = load<W>(x + i);
    acc[0] += v * v;
  }
  float sum = hsum<W>(acc[0]);
  for (; i < n; ++i) sum += x[i] * x[i];
  return sum;
}

template <int W>
[[gnu::always_inline]] inline void normalize_row(const float* x, const float* w, float* y, std::size_t n,
                                                 float rstd, bool stream, const float* next_row) {
  std::size_t i = write_vectors<W>(
      y, n, stream, [&](std::size_t at) __attribute__((always_inline)) {
        prefetch_next_row(next_row, at);
        return load<W>(x + at) * rstd * load<W>(w + at);
      });
  for (; i < n; ++i) y[i] = x[i] * rstd * w[i];
}

template <int W, int U>
[[gnu::always_inline]] inline void rms_rows(const float* x, const float* w, float* y, std::size_t cols,
                                            std::size_t begin, std::size_t end, bool stream) {
  const auto count = static_cast<float>(cols);
  for (std::size_t r = begin; r < end; ++r) {
    const float* xr = x + r * cols;
    const float rstd = 1.0f / std::sqrt(row_sum_of_squares<W, U>(xr, cols) / count + eps);
    normalize_row<W>(xr, w, y + r * cols, cols, rstd, stream, next_row_in_task(x, cols, r, end));
  }
  if (stream) stream_fence();
}

// One wrapper per ISA; the row loop is inlined into it and compiled for that ISA.
using rows_fn = void (*)(const float*, const float*, float*, std::size_t, std::size_t, std::size_t, bool);

template <int U>
void rows_sse2(const float* x, const float* w, float* y, std::size_t cols, std::size_t begin, std::size_t end,
               bool stream) {
  rms_rows<4, U>(x, w, y, cols, begin, end, stream);
}
template <int U>
[[KBENCH_TARGET_AVX2]] void rows_avx2(const float* x, const float* w, float* y, std::size_t cols,
                                      std::size_t begin, std::size_t end, bool stream) {
  rms_rows<8, U>(x, w, y, cols, begin, end, stream);
}
template <int U>
[[KBENCH_TARGET_AVX512]] void rows_avx512(const float* x, const float* w, float* y, std::size_t cols,
                                          std::size_t begin, std::size_t end, bool stream) {
  rms_rows<16, U>(x, w, y, cols, begin, end, stream);
}

rows_fn select(isa which, std::size_t unroll) {
  const std::size_t u = unroll == 1 ? 0 : unroll == 2 ? 1 : 2;
  static constexpr rows_fn table[3][3] = {{&rows_sse2<1>, &rows_sse2<2>, &rows_sse2<4>},
                                          {&rows_avx2<1>, &rows_avx2<2>, &rows_avx2<4>},
                                          {&rows_avx512<1>, &rows_avx512<2>, &rows_avx512<4>}};
  return table[static_cast<std::size_t>(which)][u];
}

}  // namespace

launcher bind_rms_norm_cpu(const kernel_args& args) {
  auto device = device_as<cpu::cpu_device>(args, "rms_norm/cpu", "a cpu device");
  if (args.shape.size() != 2 || args.shape[0] <= 0 || args.shape[1] <= 0) {
    KBENCH_THROW("rms_norm/cpu: shape must be [M, N] with M, N > 0, got {}", to_string(args.shape));
  }
  if (args.inputs.size() != 2 || !args.inputs[0] || !args.inputs[1]) {
    KBENCH_THROW("rms_norm/cpu takes 2 inputs (x, w), got {}", args.inputs.size());
  }
  const auto rows = static_cast<std::size_t>(args.shape[0]);
  const auto cols = static_cast<std::size_t>(args.shape[1]);
  const std::size_t bytes = rows * cols * sizeof(float);
  if (args.inputs[0]->size_bytes() < bytes || args.inputs[1]->size_bytes() < cols * sizeof(float)) {
    KBENCH_THROW("rms_norm/cpu: inputs too small for shape {}", to_string(args.shape));
  }
  const std::size_t grain = positive(args.config, "GRAIN", 8, "rms_norm/cpu");    // [rows per task]
  const std::size_t unroll = positive(args.config, "UNROLL", 2, "rms_norm/cpu");  // [vectors per step]
  if (unroll != 1 && unroll != 2 && unroll != 4) {
    KBENCH_THROW("rms_norm/cpu: UNROLL must be 1, 2 or 4, got {}", unroll);
  }
  const rows_fn run = select(isa_of(args.config, "rms_norm/cpu"), unroll);
  const bool stream = stream_of(args.config, "rms_norm/cpu");

  buffer_ptr input = args.inputs[0];
  buffer_ptr weight = args.inputs[1];
  buffer_ptr output = output_buffer(args, 0, bytes);
  return [device, input, weight, output, rows, cols, grain, run, stream]() {
    const float* x = cpu::float_data(input);
    const float* w = cpu::float_data(weight);
    float* y = cpu::float_data(output);
    event_ptr done = device->launch([=](const cpu::parallel_context& ctx) {
      for_tasks(ctx, rows, grain,
                [=](std::size_t begin, std::size_t end) { run(x, w, y, cols, begin, end, stream); });
    });
    return call_result{{done}, {output}};
  };
}

}  // namespace kbench::kernels
