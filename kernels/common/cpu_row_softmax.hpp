#pragma once
// Row softmax on the cpu backend, shared by softmax_two_pass and batch_softmax (a batch of matrices is B * M
// rows): pass 1 keeps a running max and a running sum of exp(x - max) (rescaled when the max grows), pass 2
// writes exp(x - max) / sum. GCC vector extensions (4 floats, one SSE register) with a polynomial exp (~1.5
// ulp): the build has no -ffast-math, so std::exp would not be auto-vectorized. Not a kernel folder: it has
// no CMakeLists.txt, and kernels include it by relative path.

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>

namespace kbench::kernels::cpu_row_softmax {

using f32x4 = float __attribute__((vector_size(16)));
using i32x4 = std::int32_t __attribute__((vector_size(16)));
constexpr std::size_t lanes = 4;

inline f32x4 load4(const float* p) {
  f32x4 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

inline void store4(float* p, f32x4 v) {
  std::memcpy(p, &v, sizeof v);
}

// exp(x) for 4 lanes (Cephes expf): x = n ln2 + r with |r| <= ln2/2, exp(r) by a degree-7 polynomial, 2^n by
// building the exponent bits. x is clamped to [-87, 88] so that 2^n stays a normal float; below -87 the
// result is ~1.6e-38 instead of a denormal or 0, an absolute error far below any tolerance.
inline f32x4 exp4(f32x4 x) {
  const f32x4 lo = f32x4{} - 87.0f;
  const f32x4 hi = f32x4{} + 88.0f;
  x = x < lo ? lo : x;
  x = x > hi ? hi : x;
  // Adding and subtracting 1.5 * 2^23 rounds x / ln2 to the nearest integer (no -ffast-math to undo it).
  const f32x4 n = (x * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
  const f32x4 r = (x - n * 0.693359375f) - n * -2.12194440e-4f;  // ln2 split in two for an exact n*ln2_hi
  f32x4 p = f32x4{} + 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  const f32x4 e = p * r * r + r + 1.0f;
  const i32x4 bits = (__builtin_convertvector(n, i32x4) + 127) << 23;
  return e * std::bit_cast<f32x4>(bits);
}

inline float lane_max(f32x4 v) {
  const float a = v[0] > v[1] ? v[0] : v[1];
  const float b = v[2] > v[3] ? v[2] : v[3];
  return a > b ? a : b;
}

// Pass 1 over one row of n floats: the max and the sum of exp(x - max). Four vectors (16 floats) per step;
// the sums are rescaled only when a step raises the max, which for a row of random values happens O(log n)
// times.
inline void row_max_and_sum(const float* x, std::size_t n, float& max_out, float& sum_out) {
  float m = -std::numeric_limits<float>::infinity();
  f32x4 acc[4] = {};
  std::size_t i = 0;
  for (; i + 4 * lanes <= n; i += 4 * lanes) {
    const f32x4 v0 = load4(x + i);
    const f32x4 v1 = load4(x + i + lanes);
    const f32x4 v2 = load4(x + i + 2 * lanes);
    const f32x4 v3 = load4(x + i + 3 * lanes);
    const f32x4 a = v0 > v1 ? v0 : v1;
    const f32x4 b = v2 > v3 ? v2 : v3;
    const float step_max = lane_max(a > b ? a : b);
    if (step_max > m) {
      const float scale = std::exp(m - step_max);  // exp(-inf) = 0 on the first step, when the sums are 0
      for (auto& s : acc) s *= scale;
      m = step_max;
    }
    acc[0] += exp4(v0 - m);
    acc[1] += exp4(v1 - m);
    acc[2] += exp4(v2 - m);
    acc[3] += exp4(v3 - m);
  }
  const f32x4 total = (acc[0] + acc[1]) + (acc[2] + acc[3]);
  float sum = (total[0] + total[1]) + (total[2] + total[3]);
  for (; i < n; ++i) {  // the tail, one element at a time with the same online update
    if (x[i] > m) {
      sum = sum * std::exp(m - x[i]) + 1.0f;
      m = x[i];
    } else {
      sum += std::exp(x[i] - m);
    }
  }
  max_out = m;
  sum_out = sum;
}

// Pass 2: y = exp(x - max) * (1 / sum).
inline void row_normalize(const float* x, float* y, std::size_t n, float max, float sum) {
  const float inv = 1.0f / sum;
  std::size_t i = 0;
  for (; i + lanes <= n; i += lanes) store4(y + i, exp4(load4(x + i) - max) * inv);
  for (; i < n; ++i) y[i] = std::exp(x[i] - max) * inv;
}

}  // namespace kbench::kernels::cpu_row_softmax
