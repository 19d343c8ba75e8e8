// add on the cpu backend: z = x + y over W-float vectors (kernels/common/cpu_simd.hpp). Config: ISA = the
// vector instructions (sse2, avx2, avx512: 4, 8 or 16 lanes); TASK = elements per task of the dynamically
// scheduled parallel loop (TASK >= n runs serially on the stream's thread, without waking the pool); STREAM =
// 1 writes z with non-temporal stores (saves the read-for-ownership of z, a quarter of the traffic, once z is
// too large for the cache).

#include <kbench/backends/cpu.hpp>
#include <kbench/error.hpp>

#include "../common/binding_checks.hpp"
#include "../common/cpu_simd.hpp"
#include "add.hpp"

#include <cstddef>

namespace kbench::kernels {

namespace {

using range_fn = void (*)(const float* x, const float* y, float* z, std::size_t n, bool stream);

template <int W>
[[gnu::always_inline]] inline void add_range(const float* x, const float* y, float* z, std::size_t n,
                                             bool stream) {
  simd::map<W>(
      z, x, y, 0, n, stream,
      [](const simd::f32v<W>& a, const simd::f32v<W>& b, std::size_t)
          __attribute__((always_inline)) { return a + b; });
}

void range_sse2(const float* x, const float* y, float* z, std::size_t n, bool stream) {
  add_range<4>(x, y, z, n, stream);
}
[[KBENCH_TARGET_AVX2]] void range_avx2(const float* x, const float* y, float* z, std::size_t n, bool stream) {
  add_range<8>(x, y, z, n, stream);
}
[[KBENCH_TARGET_AVX512]] void range_avx512(const float* x, const float* y, float* z, std::size_t n,
                                           bool stream) {
  add_range<16>(x, y, z, n, stream);
}

range_fn select(simd::isa which) {
  static constexpr range_fn table[3] = {&range_sse2, &range_avx2, &range_avx512};
  return table[static_cast<std::size_t>(which)];
}

}  // namespace

launcher bind_add_cpu(const kernel_args& args) {
  auto device = device_as<cpu::cpu_device>(args, "add/cpu", "a cpu device");
  if (args.inputs.size() != 2) KBENCH_THROW("add/cpu takes 2 inputs, got {}", args.inputs.size());
  const auto n = static_cast<std::size_t>(element_count(args.shape));              // [elements]
  const std::size_t task = simd::positive(args.config, "TASK", 65536, "add/cpu");  // [elements per task]
  const bool stream = simd::stream_of(args.config, "add/cpu");
  const range_fn run = select(simd::isa_of(args.config, "add/cpu"));
  for (const buffer_ptr& input : args.inputs) {
    if (input->size_bytes() < n * sizeof(float)) {
      KBENCH_THROW("add/cpu: an input holds {} bytes, shape {} needs {}", input->size_bytes(),
                   to_string(args.shape), n * sizeof(float));
    }
  }
  buffer_ptr x_buffer = args.inputs[0];
  buffer_ptr y_buffer = args.inputs[1];
  buffer_ptr output = output_buffer(args, 0, n * sizeof(float));
  return [device, x_buffer, y_buffer, output, n, task, run, stream]() {
    const float* x = cpu::float_data(x_buffer);
    const float* y = cpu::float_data(y_buffer);
    float* z = cpu::float_data(output);
    event_ptr done = device->launch([=](const cpu::parallel_context& ctx) {
      simd::for_tasks(ctx, n, task, [=](std::size_t begin, std::size_t end) {
        run(x + begin, y + begin, z + begin, end - begin, stream);
      });
    });
    return call_result{{done}, {output}};
  };
}

}  // namespace kbench::kernels
