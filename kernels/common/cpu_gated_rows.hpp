#pragma once
// The cpu binding shared by the gated linear units (geglu, swiglu): out [M, N] = a * gate(b) from
// x [M, 2N] = [a | b], row by row over W-float vectors (simd::gated_rows), in one pass over x. A kernel gives
// its gate as a class template Gate<W> with an always-inline operator() on simd::f32v<W>. Config: ISA = the
// vector instructions (sse2, avx2, avx512: 4, 8 or 16 lanes); ROWS = rows per task of the dynamically
// scheduled parallel loop (ROWS >= M runs serially on the stream's thread, without waking the pool);
// STREAM = 1 writes the output with non-temporal stores. Not a kernel folder: it has no CMakeLists.txt;
// kernels include it by relative path.

#include <kbench/backends/cpu.hpp>
#include <kbench/error.hpp>
#include <kbench/suite/kernel.hpp>

#include "binding_checks.hpp"
#include "cpu_simd.hpp"

#include <cstddef>
#include <string>
#include <string_view>

namespace kbench::kernels::cpu_gated {

using rows_fn = void (*)(const float* x, float* y, std::size_t first, std::size_t last, std::size_t cols,
                         bool stream);

template <template <int> class Gate>
void rows_sse2(const float* x, float* y, std::size_t first, std::size_t last, std::size_t cols, bool stream) {
  simd::gated_rows<4>(x, y, first, last, cols, stream, Gate<4>{});
}
template <template <int> class Gate>
[[KBENCH_TARGET_AVX2]] void rows_avx2(const float* x, float* y, std::size_t first, std::size_t last,
                                      std::size_t cols, bool stream) {
  simd::gated_rows<8>(x, y, first, last, cols, stream, Gate<8>{});
}
template <template <int> class Gate>
[[KBENCH_TARGET_AVX512]] void rows_avx512(const float* x, float* y, std::size_t first, std::size_t last,
                                          std::size_t cols, bool stream) {
  simd::gated_rows<16>(x, y, first, last, cols, stream, Gate<16>{});
}

/// Binds the gated kernel called `name` (for messages) with gate Gate on the cpu backend.
template <template <int> class Gate>
[[nodiscard]] launcher bind_rows(const kernel_args& args, std::string_view name) {
  const std::string where = fmt::format("{}/cpu", name);
  auto device = device_as<cpu::cpu_device>(args, where, "a cpu device");
  if (args.shape.size() != 2) KBENCH_THROW("{}: shape {} is not [M, N]", where, to_string(args.shape));
  const auto rows = static_cast<std::size_t>(args.shape[0]);
  const auto cols = static_cast<std::size_t>(args.shape[1]);  // output columns N; an input row holds 2N
  const std::size_t inputs[] = {float_bytes(args.shape[0] * 2 * args.shape[1])};
  check_inputs(args, where, inputs);
  const std::size_t task = simd::positive(args.config, "ROWS", 16, where.c_str());  // [rows per task]
  const bool stream = simd::stream_of(args.config, where.c_str());
  static constexpr rows_fn by_isa[3] = {&rows_sse2<Gate>, &rows_avx2<Gate>, &rows_avx512<Gate>};
  const rows_fn run = by_isa[static_cast<std::size_t>(simd::isa_of(args.config, where.c_str()))];

  buffer_ptr input = args.inputs[0];
  buffer_ptr output = output_buffer(args, 0, float_bytes(args.shape[0] * args.shape[1]));
  return [device, input, output, rows, cols, task, run, stream]() {
    const float* x = cpu::float_data(input);
    float* y = cpu::float_data(output);
    event_ptr done = device->launch([=](const cpu::parallel_context& ctx) {
      simd::for_tasks(ctx, rows, task,
                      [=](std::size_t first, std::size_t last) { run(x, y, first, last, cols, stream); });
    });
    return call_result{{done}, {output}};
  };
}

}  // namespace kbench::kernels::cpu_gated
