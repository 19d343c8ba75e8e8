#pragma once
// Row softmax on the cpu backend, shared by softmax_two_pass and batch_softmax (a batch of matrices is B * M
// rows), two passes per row. Pass 1 reads x, keeps a running max m and a running sum of exp(x - m) (rescaled
// when the max grows) and stores each e = exp(x - m) into y; pass 2 rescales y in place by exp(m - max) /
// sum, one scalar exp per change of m. That is one vector exp per element instead of two (recomputing exp(x -
// max) in pass 2 left the large rows compute bound, at ~1x torch, whose softmax also takes one exp per
// element); the row (<= 16 KiB here) is still in L1/L2 for pass 2, and the extra rounding of the factor keeps
// errors at a few ulp. Vectors of W floats (the ISA parameter: 4 SSE2, 8 AVX2, 16 AVX-512) with a polynomial
// exp (~1.5 ulp, cpu_rows_simd.hpp): the build has no -ffast-math, so std::exp would not be vectorized and
// scalar expf would dominate the time. Pass 1 takes UNROLL vectors per step, each with its own sum. With
// STREAM = 1, pass 1 stores e into a per-thread row buffer instead of y, and pass 2 writes y from it with
// non-temporal stores (cpu_simd.hpp write_vectors): y's lines are then never read into the cache. Not a
// kernel folder: it has no CMakeLists.txt, and kernels include it by relative path.

#include "cpu_simd.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

namespace kbench::kernels::cpu_row_softmax {

using namespace simd;  // f32v, load, store, vmax, hmax, hsum, exp, write_vectors

// Pass 1 over one row of n floats: the max, the sum of exp(x - max), and e = exp(x - m) stored into e for
// every whole vector, where m is the running max when the vector was read (step_max[v] for vector v). UNROLL
// vectors per step; the sums are rescaled only when a step raises the max, which for a row of random values
// happens O(log n) times. Returns how many floats of e were written (a multiple of W); the < W floats after
// them are left to pass 2.
template <int W, int U>
[[gnu::always_inline]] inline std::size_t row_exp_and_sum(const float* x, float* e_out, std::size_t n,
                                                          float* step_max, float& max_out, float& sum_out) {
  constexpr std::size_t step = std::size_t{W} * U;  // [floats]
  float m = -std::numeric_limits<float>::infinity();
  f32v<W> acc[U] = {};
  std::size_t i = 0;
  for (; i + step <= n; i += step) {
    f32v<W> v[U];
#pragma GCC unroll 4
    for (int u = 0; u < U; ++u) v[u] = load<W>(x + i + std::size_t{W} * u);
    f32v<W> top = v[0];
#pragma GCC unroll 4
    for (int u = 1; u < U; ++u) top = vmax<W>(top, v[u]);
    const float top_max = hmax<W>(top);
    if (top_max > m) {
      const float scale = std::exp(m - top_max);  // exp(-inf) = 0 on the first step, when the sums are 0
#pragma GCC unroll 4
      for (int u = 0; u < U; ++u) acc[u] *= scale;
      m = top_max;
    }
#pragma GCC unroll 4
    for (int u = 0; u < U; ++u) {
      const f32v<W> e = simd::exp<W>(v[u] - m);
      store<W>(e_out + i + std::size_t{W} * u, e);
      acc[u] += e;
      step_max[i / W + static_cast<std::size_t>(u)] = m;
    }
  }
  fold<W, U>(acc);
  for (; i + W <= n; i += W) {  // whole vectors left: the same update, one vector per step
    const f32v<W> v = load<W>(x + i);
    const float top_max = hmax<W>(v);
    if (top_max > m) {
      acc[0] *= std::exp(m - top_max);
      m = top_max;
    }
    const f32v<W> e = simd::exp<W>(v - m);
    store<W>(e_out + i, e);
    acc[0] += e;
    step_max[i / W] = m;
  }
  const std::size_t stored = i;
  float sum = hsum<W>(acc[0]);
  for (; i < n; ++i) {  // the tail, one element at a time with the same online update (not stored)
    if (x[i] > m) {
      sum = sum * std::exp(m - x[i]) + 1.0f;
      m = x[i];
    } else {
      sum += std::exp(x[i] - m);
    }
  }
  max_out = m;
  sum_out = sum;
  return stored;
}

// Pass 2: y = e * exp(m - max) / sum over the stored vectors (one scalar exp each time m changes), then
// y = exp(x - max) / sum over the tail. e may be y itself.
template <int W>
[[gnu::always_inline]] inline void row_normalize(const float* x, const float* e, float* y, std::size_t n,
                                                 std::size_t stored, const float* step_max, float max,
                                                 float sum, bool stream) {
  const float inv = 1.0f / sum;
  float m = std::numeric_limits<float>::quiet_NaN();  // != every max: the first vector computes its factor
  float factor = 0;
  write_vectors<W>(
      y, stored, stream, [&](std::size_t at) __attribute__((always_inline)) {
        if (!(step_max[at / W] == m)) {
          m = step_max[at / W];
          factor = std::exp(m - max) * inv;
        }
        return load<W>(e + at) * factor;
      });
  for (std::size_t i = stored; i < n; ++i) y[i] = std::exp(x[i] - max) * inv;
}

template <int W, int U>
[[gnu::always_inline]] inline void softmax_rows(const float* x, float* y, std::size_t cols, std::size_t begin,
                                                std::size_t end, bool stream) {
  // The running max of every stored vector of a row, and with `stream` the row's e; per thread and kept, so
  // no allocation once warm.
  thread_local std::vector<float> step_max;
  thread_local std::vector<float> row_buffer;
  step_max.resize(std::max(step_max.size(), cols / W + 1));
  if (stream) row_buffer.resize(std::max(row_buffer.size(), cols));
  for (std::size_t r = begin; r < end; ++r) {
    float max = 0;
    float sum = 0;
    float* e = stream ? row_buffer.data() : y + r * cols;
    const std::size_t stored = row_exp_and_sum<W, U>(x + r * cols, e, cols, step_max.data(), max, sum);
    row_normalize<W>(x + r * cols, e, y + r * cols, cols, stored, step_max.data(), max, sum, stream);
  }
  if (stream) stream_fence();
}

// One wrapper per ISA; the row loop is inlined into it and compiled for that ISA.
using rows_fn = void (*)(const float* x, float* y, std::size_t cols, std::size_t begin, std::size_t end,
                         bool stream);

template <int U>
void rows_sse2(const float* x, float* y, std::size_t cols, std::size_t begin, std::size_t end, bool stream) {
  softmax_rows<4, U>(x, y, cols, begin, end, stream);
}
template <int U>
[[KBENCH_TARGET_AVX2]] void rows_avx2(const float* x, float* y, std::size_t cols, std::size_t begin,
                                      std::size_t end, bool stream) {
  softmax_rows<8, U>(x, y, cols, begin, end, stream);
}
template <int U>
[[KBENCH_TARGET_AVX512]] void rows_avx512(const float* x, float* y, std::size_t cols, std::size_t begin,
                                          std::size_t end, bool stream) {
  softmax_rows<16, U>(x, y, cols, begin, end, stream);
}

/// The row loop for an ISA and UNROLL (1, 2 or 4: the caller checks).
inline rows_fn select(isa which, std::size_t unroll) {
  const std::size_t u = unroll == 1 ? 0 : unroll == 2 ? 1 : 2;
  static constexpr rows_fn table[3][3] = {{&rows_sse2<1>, &rows_sse2<2>, &rows_sse2<4>},
                                          {&rows_avx2<1>, &rows_avx2<2>, &rows_avx2<4>},
                                          {&rows_avx512<1>, &rows_avx512<2>, &rows_avx512<4>}};
  return table[static_cast<std::size_t>(which)][u];
}

}  // namespace kbench::kernels::cpu_row_softmax
