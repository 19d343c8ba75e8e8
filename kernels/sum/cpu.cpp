// sum on the cpu backend: rows in tasks of GRAIN rows, taken by the workers from a shared counter
// (simd::for_tasks). A row is summed in steps of UNROLL vectors of W floats (W by the ISA parameter: 4 SSE2,
// 8 AVX2, 16 AVX-512): UNROLL * W independent float accumulators, so that the adds of one step do not wait
// for each other. Every 16 steps the accumulators are added pairwise (vector halves) and the result goes
// into a double total. Each float partial sum then covers 16 values only, so the row's error stays near one
// rounding of the result (measured max abs error 1.5e-5 at N = 4096, against 2.3e-5 for torch's float
// accumulation). The loop asks for x 4 KiB ahead of its loads (sum_prefetch_distance).

#include <kbench/backends/cpu.hpp>
#include <kbench/error.hpp>

#include "../common/binding_checks.hpp"
#include "sum.hpp"

#include "../common/cpu_rows_simd.hpp"

#include <cstddef>

namespace kbench::kernels {

namespace {

using namespace simd;  // f32v, load, hsum, prefetch_ahead (../common/cpu_rows_simd.hpp)

// [floats] how far ahead of its loads a row's loop asks for x: 4 KiB, a page, as the elementwise streaming
// loops (cpu_simd.hpp stream_prefetch_distance), which the row kernels' 2 KiB did not match here
// (docs/code-figures.md).

constexpr std::size_t sum_prefetch_distance = 1024;

constexpr std::size_t flush_steps =
    16;  // [steps] a float accumulator adds before going into the double total

template <int W, int U>
[[gnu::always_inline]] inline float sum_row(const float* x, std::size_t n) {
  constexpr std::size_t step = std::size_t{W} * U;  // [floats]
  double total = 0;
  std::size_t i = 0;
  while (i + step <= n) {
    const std::size_t block_end = i + std::min(flush_steps, (n - i) / step) * step;
    f32v<W> acc[U] = {};
    for (; i < block_end; i += step) {
      prefetch_ahead(x + i, step, sum_prefetch_distance);
#pragma GCC unroll 4
      for (int u = 0; u < U; ++u) acc[u] += load<W>(x + i + std::size_t{W} * u);
    }
    fold<W, U>(acc);
    total += hsum<W>(acc[0]);
  }
  float tail = 0;  // fewer than UNROLL * W elements
  for (; i < n; ++i) tail += x[i];
  return static_cast<float>(total + tail);
}

template <int W, int U>
[[gnu::always_inline]] inline void sum_rows(const float* x, float* y, std::size_t cols, std::size_t begin,
                                            std::size_t end) {
  for (std::size_t r = begin; r < end; ++r) y[r] = sum_row<W, U>(x + r * cols, cols);
}

// One wrapper per ISA; the row loop is inlined into it and compiled for that ISA.
using rows_fn = void (*)(const float*, float*, std::size_t, std::size_t, std::size_t);

template <int U>
void rows_sse2(const float* x, float* y, std::size_t cols, std::size_t begin, std::size_t end) {
  sum_rows<4, U>(x, y, cols, begin, end);
}
template <int U>
[[KBENCH_TARGET_AVX2]] void rows_avx2(const float* x, float* y, std::size_t cols, std::size_t begin,
                                      std::size_t end) {
  sum_rows<8, U>(x, y, cols, begin, end);
}
template <int U>
[[KBENCH_TARGET_AVX512]] void rows_avx512(const float* x, float* y, std::size_t cols, std::size_t begin,
                                          std::size_t end) {
  sum_rows<16, U>(x, y, cols, begin, end);
}

rows_fn select(isa which, std::size_t unroll) {
  const std::size_t u = unroll == 1 ? 0 : unroll == 2 ? 1 : 2;
  static constexpr rows_fn table[3][3] = {{&rows_sse2<1>, &rows_sse2<2>, &rows_sse2<4>},
                                          {&rows_avx2<1>, &rows_avx2<2>, &rows_avx2<4>},
                                          {&rows_avx512<1>, &rows_avx512<2>, &rows_avx512<4>}};
  return table[static_cast<std::size_t>(which)][u];
}

}  // namespace

launcher bind_sum_cpu(const kernel_args& args) {
  auto device = device_as<cpu::cpu_device>(args, "sum/cpu", "a cpu device");
  if (args.shape.size() != 2) KBENCH_THROW("sum/cpu: shape {} is not [M, N]", to_string(args.shape));
  if (args.inputs.size() != 1) KBENCH_THROW("sum/cpu takes 1 input, got {}", args.inputs.size());
  const auto rows = static_cast<std::size_t>(args.shape[0]);
  const auto cols = static_cast<std::size_t>(args.shape[1]);
  const std::size_t grain = positive(args.config, "GRAIN", 16, "sum/cpu");   // [rows per task]
  const std::size_t unroll = positive(args.config, "UNROLL", 2, "sum/cpu");  // [vectors per step]
  if (unroll != 1 && unroll != 2 && unroll != 4)
    KBENCH_THROW("sum/cpu: UNROLL must be 1, 2 or 4, got {}", unroll);
  const rows_fn run = select(isa_of(args.config, "sum/cpu"), unroll);
  if (args.inputs[0]->size_bytes() < rows * cols * sizeof(float)) {
    KBENCH_THROW("sum/cpu: input holds {} bytes, shape {} needs {}", args.inputs[0]->size_bytes(),
                 to_string(args.shape), rows * cols * sizeof(float));
  }
  buffer_ptr input = args.inputs[0];
  buffer_ptr output = output_buffer(args, 0, rows * sizeof(float));
  return [device, input, output, rows, cols, grain, run]() {
    const float* x = cpu::float_data(input);
    float* y = cpu::float_data(output);
    event_ptr done = device->launch([=](const cpu::parallel_context& ctx) {
      for_tasks(ctx, rows, grain, [=](std::size_t begin, std::size_t end) { run(x, y, cols, begin, end); });
    });
    return call_result{{done}, {output}};
  };
}

}  // namespace kbench::kernels
