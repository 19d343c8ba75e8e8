// low_mem_dropout on the cpu backend: the counter-based hash of low_mem_dropout.hpp on W uint32 lanes
// (kernels/common/cpu_simd.hpp), the keep test on the integer bits, no branch. Config: ISA = the vector
// instructions (sse2, avx2, avx512: 4, 8 or 16 lanes; SSE2 has no 32-bit vector multiply, so that one is
// slow); TASK = elements per task of the dynamically scheduled parallel loop (TASK >= n runs serially on the
// stream's thread, without waking the pool); STREAM = 1 writes the output with non-temporal stores (saves the
// read-for-ownership once it is too large for the cache).

#include <kbench/backends/cpu.hpp>
#include <kbench/error.hpp>

#include "../common/binding_checks.hpp"
#include "../common/cpu_simd.hpp"
#include "low_mem_dropout.hpp"

#include <bit>
#include <cstddef>
#include <cstdint>

namespace kbench::kernels {

namespace {

// keep = (h >> 8) * 2^-24 >= p  <=>  (h >> 8) >= p * 2^24 (both sides exact): the same test as the other
// backends', on integers.
constexpr auto keep_threshold = static_cast<std::int32_t>(low_mem_dropout_p * 16777216.0f);
static_assert(static_cast<float>(keep_threshold) == low_mem_dropout_p * 16777216.0f,
              "p * 2^24 must be exact");

using range_fn = void (*)(const float* x, float* out, std::size_t first, std::size_t n, std::uint32_t seed,
                          bool stream);

/// out[k] = keep(first + k) ? x[k] / (1 - p) : 0 for k in [0, n).
template <int W>
[[gnu::always_inline]] inline void dropout_range(const float* x, float* out, std::size_t first, std::size_t n,
                                                 std::uint32_t seed, bool stream) {
  const std::uint32_t key = seed * low_mem_dropout_seed_mul;
  simd::map<W>(
      out, x, x, first, n, stream,
      [key](const simd::f32v<W>& v, const simd::f32v<W>&, std::size_t index) __attribute__((always_inline)) {
        // The element indices of the lanes; the host guarantees that they fit uint32.
        const simd::u32v<W> i = simd::lane_index<W>() + static_cast<std::uint32_t>(index);
        simd::u32v<W> h = (i * low_mem_dropout_index_mul) ^ key;
        h ^= h >> 16;
        h *= low_mem_dropout_mix_mul1;
        h ^= h >> 15;
        h *= low_mem_dropout_mix_mul2;
        h ^= h >> 16;
        // All ones where top24 >= threshold (kept), 0 otherwise (both sides < 2^24: a signed compare).
        const simd::i32v<W> keep = std::bit_cast<simd::i32v<W>>(h >> 8) >= keep_threshold;
        const simd::f32v<W> scaled = v / (1.0f - low_mem_dropout_p);
        return std::bit_cast<simd::f32v<W>>(std::bit_cast<simd::i32v<W>>(scaled) & keep);
      });
}

void range_sse2(const float* x, float* out, std::size_t first, std::size_t n, std::uint32_t seed,
                bool stream) {
  dropout_range<4>(x, out, first, n, seed, stream);
}
[[KBENCH_TARGET_AVX2]] void range_avx2(const float* x, float* out, std::size_t first, std::size_t n,
                                       std::uint32_t seed, bool stream) {
  dropout_range<8>(x, out, first, n, seed, stream);
}
[[KBENCH_TARGET_AVX512]] void range_avx512(const float* x, float* out, std::size_t first, std::size_t n,
                                           std::uint32_t seed, bool stream) {
  dropout_range<16>(x, out, first, n, seed, stream);
}

range_fn select(simd::isa which) {
  static constexpr range_fn table[3] = {&range_sse2, &range_avx2, &range_avx512};
  return table[static_cast<std::size_t>(which)];
}

}  // namespace

launcher bind_low_mem_dropout_cpu(const kernel_args& args) {
  auto device = device_as<cpu::cpu_device>(args, "low_mem_dropout/cpu", "a cpu device");
  if (args.inputs.size() != 2) KBENCH_THROW("low_mem_dropout/cpu takes 2 inputs, got {}", args.inputs.size());
  const auto n = static_cast<std::size_t>(element_count(args.shape));  // [elements]
  if (n > std::size_t{1} << 32) KBENCH_THROW("low_mem_dropout/cpu: {} elements do not fit a uint32 index", n);
  const std::size_t task = simd::positive(args.config, "TASK", 65536, "low_mem_dropout/cpu");  // [elements]
  const bool stream = simd::stream_of(args.config, "low_mem_dropout/cpu");
  const range_fn run = select(simd::isa_of(args.config, "low_mem_dropout/cpu"));
  if (args.inputs[0]->size_bytes() < n * sizeof(float) || args.inputs[1]->size_bytes() < sizeof(float)) {
    KBENCH_THROW("low_mem_dropout/cpu: inputs hold {} and {} bytes, shape {} needs {} and {}",
                 args.inputs[0]->size_bytes(), args.inputs[1]->size_bytes(), to_string(args.shape),
                 n * sizeof(float), sizeof(float));
  }
  buffer_ptr input = args.inputs[0];
  buffer_ptr seed_buffer = args.inputs[1];
  buffer_ptr output = output_buffer(args, 0, n * sizeof(float));
  return [device, input, seed_buffer, output, n, task, run, stream]() {
    const float* x = cpu::float_data(input);
    const float* seed_value = cpu::float_data(seed_buffer);
    float* y = cpu::float_data(output);
    event_ptr done = device->launch([=](const cpu::parallel_context& ctx) {
      // The seed is read when the kernel runs, like a device kernel would (an exact integer below 2^24).
      const auto seed = static_cast<std::uint32_t>(seed_value[0]);
      simd::for_tasks(ctx, n, task, [=](std::size_t begin, std::size_t end) {
        run(x + begin, y + begin, begin, end - begin, seed, stream);
      });
    });
    return call_result{{done}, {output}};
  };
}

}  // namespace kbench::kernels
