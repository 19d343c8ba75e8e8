// welford on the cpu backend: rows in tasks of GRAIN rows, taken by the workers from a shared counter
// (simd::for_tasks). Per row, one pass of Welford updates in UNROLL vectors of W lanes (W by the ISA
// parameter: 4 SSE2, 8 AVX2, 16 AVX-512; lane j of vector u takes elements u*W + j, u*W + j + UNROLL*W, ...),
// so every lane has seen the same number of elements and one reciprocal 1 / count serves all of them. The
// lanes are then merged with Chan's formula in a tree (vectors first, then vector halves), where equal counts
// make each merge a few multiply-adds; the last N % (UNROLL * W) elements go through a scalar Welford and
// one general merge. The Welford pass, which reads the row from memory, asks for x 2 KiB ahead of its loads
// (simd::prefetch_ahead). A second pass writes y = (x - mean) * rstd * w + b (the row is still in L1/L2);
// STREAM = 1 writes it with non-temporal stores (cpu_simd.hpp write_vectors) and asks for the task's next
// row as it goes (simd::prefetch_next_row), as rms_norm and layer_norm do.

#include <kbench/backends/cpu.hpp>
#include <kbench/error.hpp>

#include "../common/binding_checks.hpp"
#include "welford.hpp"

#include "../common/cpu_layer_norm.hpp"
#include "../common/cpu_simd.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>

namespace kbench::kernels {

namespace {

using namespace simd;  // f32v, load, low_half, high_half, prefetch_ahead, prefetch_next_row, write_vectors
                       // (../common/cpu_simd.hpp)

constexpr float eps = 1e-5f;

// Count, mean and m2 (sum of squared deviations from the mean) of a set of values.
struct moments {
  float count = 0;  // exact in float up to 2^24 elements
  float mean = 0;
  float m2 = 0;
};

// Chan, Golub and LeVeque: the moments of the union of two disjoint sets.
[[gnu::always_inline]] inline moments merge(const moments& a, const moments& b) {
  if (b.count == 0) return a;
  if (a.count == 0) return b;
  const float count = a.count + b.count;
  const float delta = b.mean - a.mean;
  const float b_share = b.count / count;
  return {count, a.mean + delta * b_share, a.m2 + b.m2 + delta * delta * a.count * b_share};
}

// Chan's merge of two sets of `count` elements each, lane by lane: b's share is 1/2.
template <int W>
[[gnu::always_inline]] inline void merge_equal(f32v<W>& mean, f32v<W>& m2, const f32v<W>& mean_b,
                                               const f32v<W>& m2_b, float count) {
  const f32v<W> delta = mean_b - mean;
  m2 = m2 + m2_b + delta * delta * (count * 0.5f);
  mean = mean + delta * 0.5f;
}

// Merges the W lanes (each the moments of `count` elements) into one: halves until one lane is left.
template <int W>
[[gnu::always_inline]] inline moments merge_lanes(const f32v<W>& mean, const f32v<W>& m2, float count) {
  if constexpr (W == 2) {
    const float delta = mean[1] - mean[0];
    return {2 * count, mean[0] + delta * 0.5f, m2[0] + m2[1] + delta * delta * (count * 0.5f)};
  } else {
    f32v<W / 2> m = low_half<W>(mean);
    f32v<W / 2> s = low_half<W>(m2);
    merge_equal<W / 2>(m, s, high_half<W>(mean), high_half<W>(m2), count);
    return merge_lanes<W / 2>(m, s, 2 * count);
  }
}

// Merges the U vectors (each lane the moments of `count` elements) into mean[0], m2[0]: the upper half onto
// the lower half until one is left; count becomes each lane's count after the merges. Compile-time indices,
// as in simd::fold (cpu_rows_simd.hpp), so that the vectors stay in registers.
template <int W, int U, int Width = U / 2, int I = 0>
[[gnu::always_inline]] inline void merge_vectors(f32v<W> (&mean)[U], f32v<W> (&m2)[U], float& count) {
  if constexpr (Width > 0) {
    if constexpr (I < Width) {
      merge_equal<W>(mean[I], m2[I], mean[I + Width], m2[I + Width], count);
      merge_vectors<W, U, Width, I + 1>(mean, m2, count);
    } else {
      count *= 2;
      merge_vectors<W, U, Width / 2, 0>(mean, m2, count);
    }
  }
}

template <int W, int U>
[[gnu::always_inline]] inline moments row_moments(const float* x, std::size_t n) {
  constexpr std::size_t step = std::size_t{W} * U;  // [floats]
  f32v<W> mean[U] = {};
  f32v<W> m2[U] = {};
  float count = 0;  // elements seen by every lane
  std::size_t i = 0;
  for (; i + step <= n; i += step) {
    // Asking ahead keeps x coming from memory while the statistics are computed (docs/code-figures.md).

    prefetch_ahead(x + i, step);
    count += 1.0f;
    const float inv = 1.0f / count;
#pragma GCC unroll 4
    for (int u = 0; u < U; ++u) {
      const f32v<W> v = load<W>(x + i + std::size_t{W} * u);
      const f32v<W> delta = v - mean[u];
      mean[u] += delta * inv;
      m2[u] += delta * (v - mean[u]);
    }
  }
  float lane_count = count;
  merge_vectors<W, U>(mean, m2, lane_count);
  const moments body = merge_lanes<W>(mean[0], m2[0], lane_count);
  moments tail;  // the last n % step elements, plain Welford
  for (; i < n; ++i) {
    tail.count += 1.0f;
    const float delta = x[i] - tail.mean;
    tail.mean += delta / tail.count;
    tail.m2 += delta * (x[i] - tail.mean);
  }
  return merge(body, tail);
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
[[gnu::always_inline]] inline void welford_rows(const float* x, const float* w, const float* b, float* y,
                                                std::size_t cols, std::size_t begin, std::size_t end,
                                                bool stream) {
  for (std::size_t r = begin; r < end; ++r) {
    const moments m = row_moments<W, U>(x + r * cols, cols);
    const float var = m.m2 / m.count;  // biased, as torch's layer_norm
    // With STREAM 1 only (the large rows): see prefetch_next_row (cpu_rows_simd.hpp) for the figures.
    const float* next = stream ? next_row_in_task(x, cols, r, end) : nullptr;
    normalize_row<W>(x + r * cols, w, b, y + r * cols, cols, m.mean, 1.0f / std::sqrt(var + eps), stream,
                     next);
  }
  if (stream) stream_fence();
}

template <int W, int U>
struct rows {
  [[gnu::always_inline]] static void run(const float* x, const float* w, const float* b, float* y,
                                         std::size_t cols, std::size_t begin, std::size_t end, bool stream) {
    welford_rows<W, U>(x, w, b, y, cols, begin, end, stream);
  }
};

}  // namespace

launcher bind_welford_cpu(const kernel_args& args) {
  return cpu_layer_norm::bind_rows<rows>(args, "welford");
}

}  // namespace kbench::kernels
