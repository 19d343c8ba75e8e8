// low_mem_dropout on the cpu backend: a parallel loop over the thread pool, GRAIN elements per chunk at
// least. The hash is plain 32-bit integer arithmetic; the keep test is done on the integer bits without a
// branch, in blocks of 16 elements with restrict-qualified pointers: a shape that GCC's -O2 vectorizer (whose
// "very cheap" cost model refuses loops of unknown trip count, runtime alias checks and control flow) turns
// into SIMD code.

#include <kbench/backends/cpu.hpp>
#include <kbench/error.hpp>

#include "low_mem_dropout.hpp"

#include <bit>
#include <cstddef>
#include <cstdint>

namespace kbench::kernels {

namespace {

constexpr std::size_t block = 16;  // [elements]

// keep = (h >> 8) * 2^-24 >= p  <=>  (h >> 8) >= p * 2^24 (both sides exact): the same test as the other
// backends', on integers.
constexpr auto keep_threshold = static_cast<std::int32_t>(low_mem_dropout_p * 16777216.0f);
static_assert(static_cast<float>(keep_threshold) == low_mem_dropout_p * 16777216.0f,
              "p * 2^24 must be exact");

/// out[k] = keep(first + k) ? x[k] / (1 - p) : 0 for k in [0, n).
void dropout_range(const float* __restrict x, float* __restrict out, std::size_t first, std::size_t n,
                   std::uint32_t seed) {
  const auto element = [seed](float value, std::size_t index) {
    const auto top24 =
        static_cast<std::int32_t>(low_mem_dropout_hash(seed, static_cast<std::uint32_t>(index)) >> 8);
    // All ones when top24 >= threshold (kept), 0 otherwise: the sign of top24 - threshold (both < 2^24).
    const auto keep_mask = static_cast<std::uint32_t>(~((top24 - keep_threshold) >> 31));
    return std::bit_cast<float>(std::bit_cast<std::uint32_t>(value / (1.0f - low_mem_dropout_p)) & keep_mask);
  };
  std::size_t k = 0;
  for (; k + block <= n; k += block) {
    for (std::size_t j = 0; j < block; ++j) out[k + j] = element(x[k + j], first + k + j);
  }
  for (; k < n; ++k) out[k] = element(x[k], first + k);
}

}  // namespace

launcher bind_low_mem_dropout_cpu(const kernel_args& args) {
  auto device = std::dynamic_pointer_cast<cpu::cpu_device>(args.device);
  if (!device) {
    KBENCH_THROW("low_mem_dropout/cpu needs a cpu device, got {}",
                 args.device ? to_string(args.device->info().backend) : "no device");
  }
  if (args.inputs.size() != 2) KBENCH_THROW("low_mem_dropout/cpu takes 2 inputs, got {}", args.inputs.size());
  const auto n = static_cast<std::size_t>(element_count(args.shape));  // [elements]
  if (n > std::size_t{1} << 32) KBENCH_THROW("low_mem_dropout/cpu: {} elements do not fit a uint32 index", n);
  const auto grain = static_cast<std::size_t>(args.config.at("GRAIN"));  // [elements per chunk, at least]
  if (grain == 0) KBENCH_THROW("low_mem_dropout/cpu: GRAIN must be positive");
  if (args.inputs[0]->size_bytes() < n * sizeof(float) || args.inputs[1]->size_bytes() < sizeof(float)) {
    KBENCH_THROW("low_mem_dropout/cpu: inputs hold {} and {} bytes, shape {} needs {} and {}",
                 args.inputs[0]->size_bytes(), args.inputs[1]->size_bytes(), to_string(args.shape),
                 n * sizeof(float), sizeof(float));
  }
  buffer_ptr input = args.inputs[0];
  buffer_ptr seed_buffer = args.inputs[1];
  buffer_ptr output = device->allocate(n * sizeof(float));
  return [device, input, seed_buffer, output, n, grain]() {
    const float* x = cpu::float_data(input);
    const float* seed_value = cpu::float_data(seed_buffer);
    float* y = cpu::float_data(output);
    event_ptr done = device->launch([=](const cpu::parallel_context& ctx) {
      // The seed is read when the kernel runs, like a device kernel would (an exact integer below 2^24).
      const auto seed = static_cast<std::uint32_t>(seed_value[0]);
      ctx.parallel_for(n, grain, [=](std::size_t begin, std::size_t end) {
        dropout_range(x + begin, y + begin, begin, end - begin, seed);
      });
    });
    return call_result{{done}, {output}};
  };
}

}  // namespace kbench::kernels
