#pragma once
// The cpu binding shared by the layer norms (layer_norm: two-pass statistics; welford: Welford + Chan):
// y = (x - mean) * rstd * w + b over the rows of x [..., N], rows in tasks of GRAIN rows (simd::for_tasks).
// A kernel gives its row loop as Rows<W, U>::run(x, w, b, y, cols, begin, end, stream), for W float lanes
// and U vectors per step; this compiles it once per ISA and unroll. Config: GRAIN rows per task, UNROLL (1, 2
// or 4), ISA, STREAM. Not a kernel folder: it has no CMakeLists.txt; kernels include it by relative path.

#include <kbench/backends/cpu.hpp>
#include <kbench/error.hpp>
#include <kbench/suite/kernel.hpp>

#include "binding_checks.hpp"
#include "cpu_simd.hpp"
#include "row_arguments.hpp"

#include <cstddef>
#include <string>
#include <string_view>

namespace kbench::kernels::cpu_layer_norm {

using rows_fn = void (*)(const float* x, const float* w, const float* b, float* y, std::size_t cols,
                         std::size_t begin, std::size_t end, bool stream);

// One wrapper per ISA; the row loop is inlined into it and compiled for that ISA.
template <template <int, int> class Rows, int U>
void rows_sse2(const float* x, const float* w, const float* b, float* y, std::size_t cols, std::size_t begin,
               std::size_t end, bool stream) {
  Rows<4, U>::run(x, w, b, y, cols, begin, end, stream);
}
template <template <int, int> class Rows, int U>
[[KBENCH_TARGET_AVX2]] void rows_avx2(const float* x, const float* w, const float* b, float* y,
                                      std::size_t cols, std::size_t begin, std::size_t end, bool stream) {
  Rows<8, U>::run(x, w, b, y, cols, begin, end, stream);
}
template <template <int, int> class Rows, int U>
[[KBENCH_TARGET_AVX512]] void rows_avx512(const float* x, const float* w, const float* b, float* y,
                                          std::size_t cols, std::size_t begin, std::size_t end, bool stream) {
  Rows<16, U>::run(x, w, b, y, cols, begin, end, stream);
}

/// Binds the layer norm called `name` (for messages) whose row loop is Rows on the cpu backend.
template <template <int, int> class Rows>
[[nodiscard]] launcher bind_rows(const kernel_args& args, std::string_view name) {
  const std::string where = fmt::format("{}/cpu", name);
  auto device = device_as<cpu::cpu_device>(args, where, "a cpu device");
  const row_geometry g = check_row_arguments(args, where, 2);  // x, then w and b: one row each
  const auto rows = static_cast<std::size_t>(g.rows);
  const auto cols = static_cast<std::size_t>(g.cols);
  const std::size_t grain = simd::positive(args.config, "GRAIN", 8, where.c_str());    // [rows per task]
  const std::size_t unroll = simd::positive(args.config, "UNROLL", 2, where.c_str());  // [vectors per step]
  if (unroll != 1 && unroll != 2 && unroll != 4) {
    KBENCH_THROW("{}: UNROLL must be 1, 2 or 4, got {}", where, unroll);
  }
  static constexpr rows_fn table[3][3] = {
      {&rows_sse2<Rows, 1>, &rows_sse2<Rows, 2>, &rows_sse2<Rows, 4>},
      {&rows_avx2<Rows, 1>, &rows_avx2<Rows, 2>, &rows_avx2<Rows, 4>},
      {&rows_avx512<Rows, 1>, &rows_avx512<Rows, 2>, &rows_avx512<Rows, 4>}};
  const rows_fn run =
      table[static_cast<std::size_t>(simd::isa_of(args.config, where.c_str()))][unroll == 1   ? 0
                                                                                : unroll == 2 ? 1
                                                                                              : 2];
  const bool stream = simd::stream_of(args.config, where.c_str());

  buffer_ptr input = args.inputs[0];
  buffer_ptr weight = args.inputs[1];
  buffer_ptr bias = args.inputs[2];
  buffer_ptr output = output_buffer(args, 0, g.bytes);
  return [device, input, weight, bias, output, rows, cols, grain, run, stream]() {
    const float* x = cpu::float_data(input);
    const float* w = cpu::float_data(weight);
    const float* b = cpu::float_data(bias);
    float* y = cpu::float_data(output);
    event_ptr done = device->launch([=](const cpu::parallel_context& ctx) {
      simd::for_tasks(ctx, rows, grain,
                      [=](std::size_t begin, std::size_t end) { run(x, w, b, y, cols, begin, end, stream); });
    });
    return call_result{{done}, {output}};
  };
}

}  // namespace kbench::kernels::cpu_layer_norm
