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

#include "../common/binding_checks.hpp"
#include "layer_norm.hpp"

#include "../common/cpu_layer_norm.hpp"
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

template <int W, int U>
struct rows {
  [[gnu::always_inline]] static void run(const float* x, const float* w, const float* b, float* y,
                                         std::size_t cols, std::size_t begin, std::size_t end, bool stream) {
    layer_norm_rows<W, U>(x, w, b, y, cols, begin, end, stream);
  }
};

}  // namespace

launcher bind_layer_norm_cpu(const kernel_args& args) {
  return cpu_layer_norm::bind_rows<rows>(args, "layer_norm");
}

}  // namespace kbench::kernels
