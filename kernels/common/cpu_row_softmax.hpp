#pragma once
// Row softmax on the cpu backend, shared by softmax_two_pass and batch_softmax (a batch of matrices is B * M
// rows), two passes per row. Pass 1 reads x, keeps a reference m near the running max (raised when a value
// exceeds it by more than rescale_margin) and a running sum of exp(x - m) (rescaled when m is raised), and
// stores each e = exp(x - m) into y; pass 2 rescales y in place by exp(m - final m) / sum, one scalar exp per
// change of m. That is one vector exp per element instead of two (recomputing exp(x - max) in pass 2 left the
// large rows compute bound, at ~1x torch, whose softmax also takes one exp per element); the row (<= 16 KiB
// here) is still in L1/L2 for pass 2, and the extra rounding of the factor keeps errors at a few ulp. Vectors
// of W floats (the ISA parameter: 4 SSE2, 8 AVX2, 16 AVX-512) with a polynomial exp (~1.5 ulp,
// cpu_rows_simd.hpp): the build has no -ffast-math, so std::exp would not be vectorized and scalar expf would
// dominate the time. Pass 1 takes UNROLL vectors per step, each with its own sum, and asks for x 2 KiB ahead
// of its loads (simd::prefetch_ahead: 1.19x on [4096,4096] with STREAM 1). With STREAM = 1, pass 1
// stores e into a per-thread row buffer instead of y, and pass 2 writes y from it with non-temporal stores
// (cpu_simd.hpp write_vectors): y's lines are then never read into the cache; pass 1 then also asks for the
// task's next row (simd::prefetch_next_row), its longest stretch of compute overlapping the next row's reads.
// Not a kernel folder: it has no CMakeLists.txt, and kernels include it by relative path.

#include <kbench/backends/cpu.hpp>
#include <kbench/error.hpp>
#include <kbench/suite/kernel.hpp>

#include "binding_checks.hpp"
#include "cpu_simd.hpp"
#include "row_arguments.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace kbench::kernels::cpu_row_softmax {

using namespace simd;  // f32v, load, store, vmax, hmax, any_greater, hsum, exp, write_vectors

// [natural-log units] how far a value may exceed the reference m before m is raised to it. Softmax is the
// same for any m (exp(x - m) / sum exp(x - m)); m only has to keep exp(x - m) finite: <= e^8 ~ 3e3 per
// element here. Raising m at every new running max (margin 0) costs, for a row of random values, O(log n)
// raises per row, each a mispredicted branch and a scalar libm exp, and pass 2 a new factor after each; with
// the margin, m is set by the first step and rarely moves. Same session, old/new binaries interleaved,
// softmax_two_pass UNROLL 2, wall median: [1024,4096] GRAIN 4 2.50-2.84 -> 2.19-2.37 ms, [4096,4096] GRAIN 1
// STREAM 1 10.4-10.7 -> 9.6-10.2 ms; [1024,256] on one thread, UNROLL 4, throughput 0.41-0.44 -> 0.36-0.40
// ms.
constexpr float rescale_margin = 8.0f;

// Pass 1 over one row of n floats: a reference m (>= the row's max - rescale_margin, <= its max), the sum of
// exp(x - m), and e = exp(x - m') stored into e for every whole vector, where m' is the reference when the
// vector was read (step_ref[v] for vector v). UNROLL vectors per step; the sums are rescaled only when a step
// raises m. Asks for next_row (null: none) into L2 as it goes (simd::prefetch_next_row), so that the next
// row's reads overlap this pass's exps. Returns how many floats of e were written (a multiple of W); the < W
// floats after them are left to pass 2.
template <int W, int U>
[[gnu::always_inline]] inline std::size_t row_exp_and_sum(const float* x, float* e_out, std::size_t n,
                                                          float* step_ref, float& ref_out, float& sum_out,
                                                          const float* next_row) {
  constexpr std::size_t step = std::size_t{W} * U;  // [floats]
  float m = -std::numeric_limits<float>::infinity();
  f32v<W> acc[U] = {};
  std::size_t i = 0;
  for (; i + step <= n; i += step) {
    f32v<W> v[U];
    prefetch_ahead(x + i, step);
#pragma GCC unroll 4
    for (int u = 0; u < U; ++u) v[u] = load<W>(x + i + std::size_t{W} * u);
    f32v<W> top = v[0];
#pragma GCC unroll 4
    for (int u = 1; u < U; ++u) top = vmax<W>(top, v[u]);
    // A compare into a mask instead of the step's horizontal max, which is needed only when m is raised:
    // kbench measure wall medians, [1024,1024] (cache-resident), AVX-512, 1.04x (5 of 6 rounds faster).
    if (any_greater<W>(top, m + rescale_margin)) {
      const float top_max = hmax<W>(top);
      const float scale = std::exp(m - top_max);  // exp(-inf) = 0 on the first step, when the sums are 0
#pragma GCC unroll 4
      for (int u = 0; u < U; ++u) acc[u] *= scale;
      m = top_max;
    }
#pragma GCC unroll 4
    for (int u = 0; u < U; ++u) {
      const f32v<W> e = simd::exp<W>(v[u] - m);
      store<W>(e_out + i + std::size_t{W} * u, e);
      prefetch_next_row(next_row, i + std::size_t{W} * u);
      acc[u] += e;
      step_ref[i / W + static_cast<std::size_t>(u)] = m;
    }
  }
  fold<W, U>(acc);
  for (; i + W <= n; i += W) {  // whole vectors left: the same update, one vector per step
    const f32v<W> v = load<W>(x + i);
    const float top_max = hmax<W>(v);
    if (top_max > m + rescale_margin) {
      acc[0] *= std::exp(m - top_max);
      m = top_max;
    }
    const f32v<W> e = simd::exp<W>(v - m);
    store<W>(e_out + i, e);
    acc[0] += e;
    step_ref[i / W] = m;
  }
  const std::size_t stored = i;
  float sum = hsum<W>(acc[0]);
  for (; i < n; ++i) {  // the tail, one element at a time, raising m to every new max (not stored)
    if (x[i] > m) {
      sum = sum * std::exp(m - x[i]) + 1.0f;
      m = x[i];
    } else {
      sum += std::exp(x[i] - m);
    }
  }
  ref_out = m;
  sum_out = sum;
  return stored;
}

// Pass 2: y = e * exp(m' - ref) / sum over the stored vectors (m' = step_ref of the vector; one scalar exp
// each time it changes), then y = exp(x - ref) / sum over the tail. e may be y itself.
template <int W>
[[gnu::always_inline]] inline void row_normalize(const float* x, const float* e, float* y, std::size_t n,
                                                 std::size_t stored, const float* step_ref, float ref,
                                                 float sum, bool stream) {
  const float inv = 1.0f / sum;
  float m = std::numeric_limits<float>::quiet_NaN();  // != every m': the first vector computes its factor
  float factor = 0;
  write_vectors<W>(
      y, stored, stream, [&](std::size_t at) __attribute__((always_inline)) {
        if (!(step_ref[at / W] == m)) {
          m = step_ref[at / W];
          factor = std::exp(m - ref) * inv;
        }
        return load<W>(e + at) * factor;
      });
  for (std::size_t i = stored; i < n; ++i) y[i] = std::exp(x[i] - ref) * inv;
}

template <int W, int U>
[[gnu::always_inline]] inline void softmax_rows(const float* x, float* y, std::size_t cols, std::size_t begin,
                                                std::size_t end, bool stream) {
  // The reference m of every stored vector of a row, and with `stream` the row's e; per thread and kept, so
  // no allocation once warm.
  thread_local std::vector<float> step_ref;
  thread_local std::vector<float> row_buffer;
  step_ref.resize(std::max(step_ref.size(), cols / W + 1));
  if (stream) row_buffer.resize(std::max(row_buffer.size(), cols));
  for (std::size_t r = begin; r < end; ++r) {
    float ref = 0;
    float sum = 0;
    float* e = stream ? row_buffer.data() : y + r * cols;
    // With STREAM 1 only (the large rows): see prefetch_next_row (cpu_rows_simd.hpp) for the figures.
    const float* next = stream ? next_row_in_task(x, cols, r, end) : nullptr;
    const std::size_t stored = row_exp_and_sum<W, U>(x + r * cols, e, cols, step_ref.data(), ref, sum, next);
    row_normalize<W>(x + r * cols, e, y + r * cols, cols, stored, step_ref.data(), ref, sum, stream);
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

/// Binds the softmax of every row of args.shape = [..., N] (the leading dimensions flattened: batch_softmax's
/// [B, M, N] is B * M rows) on the cpu backend; `name` is the kernel's, for messages. Config: GRAIN rows per
/// task, UNROLL vectors per step (1, 2 or 4), ISA, STREAM.
[[nodiscard]] inline launcher bind_rows(const kernel_args& args, std::string_view name) {
  const std::string where = fmt::format("{}/cpu", name);
  auto device = device_as<cpu::cpu_device>(args, where, "a cpu device");
  const row_geometry g = check_row_arguments(args, where, 0);
  const auto rows = static_cast<std::size_t>(g.rows);
  const auto cols = static_cast<std::size_t>(g.cols);
  const std::size_t grain = simd::positive(args.config, "GRAIN", 8, where.c_str());    // [rows per task]
  const std::size_t unroll = simd::positive(args.config, "UNROLL", 2, where.c_str());  // [vectors per step]
  if (unroll != 1 && unroll != 2 && unroll != 4)
    KBENCH_THROW("{}: UNROLL must be 1, 2 or 4, got {}", where, unroll);
  const rows_fn run = select(simd::isa_of(args.config, where.c_str()), unroll);
  const bool stream = simd::stream_of(args.config, where.c_str());

  buffer_ptr input = args.inputs[0];
  buffer_ptr output = output_buffer(args, 0, g.bytes);
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

}  // namespace kbench::kernels::cpu_row_softmax
