// layer_norm on the cpu backend: rows in tasks of GRAIN rows, taken by the workers from a shared counter
// (simd::for_tasks). Per row, the two-pass statistics (sum -> mean, then sum of squared deviations -> var),
// each a sum in UNROLL vectors of W float lanes (W by the ISA parameter: 4 SSE2, 8 AVX2, 16 AVX-512; the
// independent lanes hide the add latency and shorten the rounding chains), then a last pass writes
// y = (x - mean) * rstd * w + b. The row (<= 16 KiB here) stays in L1/L2 between the passes; the first,
// which reads it from memory, asks for x 2 KiB ahead of its loads (simd::prefetch_ahead), and the last,
// the longest, asks for the task's next row (simd::prefetch_next_row), as rms_norm's does: asked for in the
// short variance pass, the next row came later (docs/code-figures.md). STREAM = 1 writes y with
// non-temporal stores (cpu_simd.hpp write_vectors).

#include <kbench/backends/cpu.hpp>
#include <kbench/error.hpp>

#include "layer_norm.hpp"

#include "../common/cpu_simd.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>

namespace kbench::kernels {

namespace {

using namespace simd;  // f32v, load, store, hsum, write_vectors (../common/cpu_simd.hpp)

constexpr float eps = 1e-5f;

/// sum of (x - center)^Power over the row, Power 1 or 2.
template <int W, int U, int Power>
[[gnu::always_inline]] inline float row_moment(const float* x, std::size_t n, float center) {
  constexpr std::size_t step = std::size_t{W} * U;  // [floats]
  f32v<W> acc[U] = {};
  std::size_t i = 0;
  for (; i + step <= n; i += step) {
    if constexpr (Power == 1) prefetch_ahead(x + i, step);  // the pass that reads the row from memory
#pragma GCC unroll 4
    for (int u = 0; u < U; ++u) {
      const f32v<W> d = load<W>(x + i + std::size_t{W} * u) - center;
      if constexpr (Power == 1) {
        acc[u] += d;
      } else {
        acc[u] += d * d;
      }
    }
  }
  fold<W, U>(acc);
  for (; i + W <= n; i += W) {
    const f32v<W> d = load<W>(x + i) - center;
    if constexpr (Power == 1) {
      acc[0] += d;
    } else {
      acc[0] += d * d;
    }
  }
  float sum = hsum<W>(acc[0]);
  for (; i < n; ++i) {
    const float d = x[i] - center;
    sum += Power == 1 ? d : d * d;
  }
  return sum;
}

template <int W>
[[gnu::always_inline]] inline void normalize_row(const float* x, const float* w, const float* b, float* y,
                                                 std::size_t n, float mean, float rstd, bool stream,
                                                 const float* next_row) {
  std::size_t i = write_vectors<W>(
      y, n, stream, [&](std::size_t at) __attribute__((always_inline)) {
        prefetch_next_row(next_row, at);
        return (load<W>(x + at) - mean) * rstd * load<W>(w + at) + load<W>(b + at);
      });
  for (; i < n; ++i) y[i] = (x[i] - mean) * rstd * w[i] + b[i];
}

template <int W, int U>
[[gnu::always_inline]] inline void layer_norm_rows(const float* x, const float* w, const float* b, float* y,
                                                   std::size_t cols, std::size_t begin, std::size_t end,
                                                   bool stream) {
  const auto count = static_cast<float>(cols);
  for (std::size_t r = begin; r < end; ++r) {
    const float* xr = x + r * cols;
    const float mean = row_moment<W, U, 1>(xr, cols, 0.0f) / count;
    // The biased variance (divided by N), as torch's layer_norm.
    const float var = row_moment<W, U, 2>(xr, cols, mean) / count;
    normalize_row<W>(xr, w, b, y + r * cols, cols, mean, 1.0f / std::sqrt(var + eps), stream,
                     next_row_in_task(x, cols, r, end));
  }
  if (stream) stream_fence();
}

// One wrapper per ISA; the row loop is inlined into it and compiled for that ISA.
using rows_fn = void (*)(const float*, const float*, const float*, float*, std::size_t, std::size_t,
                         std::size_t, bool);

template <int U>
void rows_sse2(const float* x, const float* w, const float* b, float* y, std::size_t cols, std::size_t begin,
               std::size_t end, bool stream) {
  layer_norm_rows<4, U>(x, w, b, y, cols, begin, end, stream);
}
template <int U>
[[KBENCH_TARGET_AVX2]] void rows_avx2(const float* x, const float* w, const float* b, float* y,
                                      std::size_t cols, std::size_t begin, std::size_t end, bool stream) {
  layer_norm_rows<8, U>(x, w, b, y, cols, begin, end, stream);
}
template <int U>
[[KBENCH_TARGET_AVX512]] void rows_avx512(const float* x, const float* w, const float* b, float* y,
                                          std::size_t cols, std::size_t begin, std::size_t end, bool stream) {
  layer_norm_rows<16, U>(x, w, b, y, cols, begin, end, stream);
}

rows_fn select(isa which, std::size_t unroll) {
  const std::size_t u = unroll == 1 ? 0 : unroll == 2 ? 1 : 2;
  static constexpr rows_fn table[3][3] = {{&rows_sse2<1>, &rows_sse2<2>, &rows_sse2<4>},
                                          {&rows_avx2<1>, &rows_avx2<2>, &rows_avx2<4>},
                                          {&rows_avx512<1>, &rows_avx512<2>, &rows_avx512<4>}};
  return table[static_cast<std::size_t>(which)][u];
}

}  // namespace

launcher bind_layer_norm_cpu(const kernel_args& args) {
  auto device = std::dynamic_pointer_cast<cpu::cpu_device>(args.device);
  if (!device) {
    KBENCH_THROW("layer_norm/cpu needs a cpu device, got {}",
                 args.device ? std::string(to_string(args.device->info().backend)) : std::string("none"));
  }
  if (args.shape.size() != 2 || args.shape[0] <= 0 || args.shape[1] <= 0) {
    KBENCH_THROW("layer_norm/cpu: shape must be [M, N] with M, N > 0, got {}", to_string(args.shape));
  }
  if (args.inputs.size() != 3 || !args.inputs[0] || !args.inputs[1] || !args.inputs[2]) {
    KBENCH_THROW("layer_norm/cpu takes 3 inputs (x, w, b), got {}", args.inputs.size());
  }
  const auto rows = static_cast<std::size_t>(args.shape[0]);
  const auto cols = static_cast<std::size_t>(args.shape[1]);
  const std::size_t bytes = rows * cols * sizeof(float);
  if (args.inputs[0]->size_bytes() < bytes || args.inputs[1]->size_bytes() < cols * sizeof(float) ||
      args.inputs[2]->size_bytes() < cols * sizeof(float)) {
    KBENCH_THROW("layer_norm/cpu: inputs too small for shape {}", to_string(args.shape));
  }
  const std::size_t grain = positive(args.config, "GRAIN", 8, "layer_norm/cpu");    // [rows per task]
  const std::size_t unroll = positive(args.config, "UNROLL", 2, "layer_norm/cpu");  // [vectors per step]
  if (unroll != 1 && unroll != 2 && unroll != 4) {
    KBENCH_THROW("layer_norm/cpu: UNROLL must be 1, 2 or 4, got {}", unroll);
  }
  const rows_fn run = select(isa_of(args.config, "layer_norm/cpu"), unroll);
  const bool stream = stream_of(args.config, "layer_norm/cpu");

  buffer_ptr input = args.inputs[0];
  buffer_ptr weight = args.inputs[1];
  buffer_ptr bias = args.inputs[2];
  buffer_ptr output = output_buffer(args, 0, bytes);
  return [device, input, weight, bias, output, rows, cols, grain, run, stream]() {
    const float* x = cpu::float_data(input);
    const float* w = cpu::float_data(weight);
    const float* b = cpu::float_data(bias);
    float* y = cpu::float_data(output);
    event_ptr done = device->launch([=](const cpu::parallel_context& ctx) {
      for_tasks(ctx, rows, grain,
                [=](std::size_t begin, std::size_t end) { run(x, w, b, y, cols, begin, end, stream); });
    });
    return call_result{{done}, {output}};
  };
}

}  // namespace kbench::kernels
