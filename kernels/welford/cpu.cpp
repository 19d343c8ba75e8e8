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

#include "welford.hpp"

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

// One wrapper per ISA; the row loop is inlined into it and compiled for that ISA.
using rows_fn = void (*)(const float*, const float*, const float*, float*, std::size_t, std::size_t,
                         std::size_t, bool);

template <int U>
void rows_sse2(const float* x, const float* w, const float* b, float* y, std::size_t cols, std::size_t begin,
               std::size_t end, bool stream) {
  welford_rows<4, U>(x, w, b, y, cols, begin, end, stream);
}
template <int U>
[[KBENCH_TARGET_AVX2]] void rows_avx2(const float* x, const float* w, const float* b, float* y,
                                      std::size_t cols, std::size_t begin, std::size_t end, bool stream) {
  welford_rows<8, U>(x, w, b, y, cols, begin, end, stream);
}
template <int U>
[[KBENCH_TARGET_AVX512]] void rows_avx512(const float* x, const float* w, const float* b, float* y,
                                          std::size_t cols, std::size_t begin, std::size_t end, bool stream) {
  welford_rows<16, U>(x, w, b, y, cols, begin, end, stream);
}

rows_fn select(isa which, std::size_t unroll) {
  const std::size_t u = unroll == 1 ? 0 : unroll == 2 ? 1 : 2;
  static constexpr rows_fn table[3][3] = {{&rows_sse2<1>, &rows_sse2<2>, &rows_sse2<4>},
                                          {&rows_avx2<1>, &rows_avx2<2>, &rows_avx2<4>},
                                          {&rows_avx512<1>, &rows_avx512<2>, &rows_avx512<4>}};
  return table[static_cast<std::size_t>(which)][u];
}

}  // namespace

launcher bind_welford_cpu(const kernel_args& args) {
  auto device = std::dynamic_pointer_cast<cpu::cpu_device>(args.device);
  if (!device) {
    KBENCH_THROW("welford/cpu needs a cpu device, got {}",
                 args.device ? std::string(to_string(args.device->info().backend)) : std::string("none"));
  }
  if (args.shape.size() != 2 || args.shape[0] <= 0 || args.shape[1] <= 0) {
    KBENCH_THROW("welford/cpu: shape must be [M, N] with M, N > 0, got {}", to_string(args.shape));
  }
  if (args.inputs.size() != 3 || !args.inputs[0] || !args.inputs[1] || !args.inputs[2]) {
    KBENCH_THROW("welford/cpu takes 3 inputs (x, w, b), got {}", args.inputs.size());
  }
  const auto rows = static_cast<std::size_t>(args.shape[0]);
  const auto cols = static_cast<std::size_t>(args.shape[1]);
  const std::size_t bytes = rows * cols * sizeof(float);
  if (args.inputs[0]->size_bytes() < bytes || args.inputs[1]->size_bytes() < cols * sizeof(float) ||
      args.inputs[2]->size_bytes() < cols * sizeof(float)) {
    KBENCH_THROW("welford/cpu: inputs too small for shape {}", to_string(args.shape));
  }
  const std::size_t grain = positive(args.config, "GRAIN", 8, "welford/cpu");    // [rows per task]
  const std::size_t unroll = positive(args.config, "UNROLL", 2, "welford/cpu");  // [vectors per step]
  if (unroll != 1 && unroll != 2 && unroll != 4) {
    KBENCH_THROW("welford/cpu: UNROLL must be 1, 2 or 4, got {}", unroll);
  }
  const rows_fn run = select(isa_of(args.config, "welford/cpu"), unroll);
  const bool stream = stream_of(args.config, "welford/cpu");

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
