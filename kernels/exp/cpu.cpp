// exp on the cpu backend: y = exp(x) with the vectorized polynomial exp of kernels/common/cpu_simd.hpp
// (libm's expf is a call per element that stops vectorization). Config: ISA = the vector instructions (sse2,
// avx2, avx512: 4, 8 or 16 lanes); TASK = elements per task of the dynamically scheduled parallel loop (TASK
// >= n runs serially on the stream's thread, without waking the pool); STREAM = 1 writes y with non-temporal
// stores (saves the read-for-ownership of y once y is too large for the cache).

#include <kbench/backends/cpu.hpp>
#include <kbench/error.hpp>

#include "../common/binding_checks.hpp"
#include "../common/cpu_simd.hpp"
#include "exp.hpp"

#include <cstddef>

namespace kbench::kernels {

namespace {

using range_fn = void (*)(const float* x, float* y, std::size_t n, bool stream);

template <int W>
[[gnu::always_inline]] inline void exp_range(const float* x, float* y, std::size_t n, bool stream) {
  simd::map<W>(
      y, x, x, 0, n, stream,
      [](const simd::f32v<W>& v, const simd::f32v<W>&, std::size_t)
          __attribute__((always_inline)) { return simd::exp_full_range<W>(v); });
}

void range_sse2(const float* x, float* y, std::size_t n, bool stream) {
  exp_range<4>(x, y, n, stream);
}
[[KBENCH_TARGET_AVX2]] void range_avx2(const float* x, float* y, std::size_t n, bool stream) {
  exp_range<8>(x, y, n, stream);
}
[[KBENCH_TARGET_AVX512]] void range_avx512(const float* x, float* y, std::size_t n, bool stream) {
  exp_range<16>(x, y, n, stream);
}

range_fn select(simd::isa which) {
  static constexpr range_fn table[3] = {&range_sse2, &range_avx2, &range_avx512};
  return table[static_cast<std::size_t>(which)];
}

}  // namespace

launcher bind_exp_cpu(const kernel_args& args) {
  auto device = device_as<cpu::cpu_device>(args, "exp/cpu", "a cpu device");
  if (args.inputs.size() != 1) KBENCH_THROW("exp/cpu takes 1 input, got {}", args.inputs.size());
  const auto n = static_cast<std::size_t>(element_count(args.shape));              // [elements]
  const std::size_t task = simd::positive(args.config, "TASK", 65536, "exp/cpu");  // [elements per task]
  const bool stream = simd::stream_of(args.config, "exp/cpu");
  const range_fn run = select(simd::isa_of(args.config, "exp/cpu"));
  if (args.inputs[0]->size_bytes() < n * sizeof(float)) {
    KBENCH_THROW("exp/cpu: input holds {} bytes, shape {} needs {}", args.inputs[0]->size_bytes(),
                 to_string(args.shape), n * sizeof(float));
  }
  buffer_ptr input = args.inputs[0];
  buffer_ptr output = output_buffer(args, 0, n * sizeof(float));
  return [device, input, output, n, task, run, stream]() {
    const float* x = cpu::float_data(input);
    float* y = cpu::float_data(output);
    event_ptr done = device->launch([=](const cpu::parallel_context& ctx) {
      simd::for_tasks(ctx, n, task, [=](std::size_t begin, std::size_t end) {
        run(x + begin, y + begin, end - begin, stream);
      });
    });
    return call_result{{done}, {output}};
  };
}

}  // namespace kbench::kernels
