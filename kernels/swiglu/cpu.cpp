// swiglu on the cpu backend: a parallel loop over rows, GRAIN rows per chunk at least. libm's expf is a call
// per element that stops vectorization, so silu is computed here with plain arithmetic (an exp by exponent
// bits), in blocks of 16 elements with restrict-qualified pointers and no branches: a shape that GCC's -O2
// vectorizer (whose "very cheap" cost model refuses loops of unknown trip count, runtime alias checks and
// control flow) turns into SIMD code.

#include <kbench/backends/cpu.hpp>
#include <kbench/error.hpp>

#include "swiglu.hpp"

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>

namespace kbench::kernels {

namespace {

constexpr std::size_t block = 16;  // [elements]

/// exp(y) with plain arithmetic (Cephes' expf: y = n ln2 + r, |r| <= ln2 / 2, a degree-7 polynomial for
/// exp(r), 2^n from exponent bits). Relative error < 1e-7 on [-87, 87]; |y| is clamped to 87 on the integer
/// bits (a branch-free min), so exp(-inf) ~ 1.6e-38 and exp(+inf) ~ 6e37.
inline float exp_approx(float y) {
  const auto bits = std::bit_cast<std::int32_t>(y);
  const std::int32_t magnitude = std::min(bits & 0x7FFFFFFF, std::bit_cast<std::int32_t>(87.0f));
  y = std::bit_cast<float>(magnitude | (bits & std::numeric_limits<std::int32_t>::min()));
  const float n = (y * 1.44269504088896341f + 12582912.0f) - 12582912.0f;  // round(y / ln2): 1.5 * 2^23 trick
  const float r = (y - n * 0.693359375f) - n * -2.12194440e-4f;            // ln2 in two parts, exact n * hi
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  const float exp_r = p * r * r + r + 1.0f;
  return exp_r * std::bit_cast<float>((static_cast<std::int32_t>(n) + 127) << 23);  // n in [-126, 126]
}

/// silu(b) = b / (1 + exp(-b)); relative error < 2e-7 (measured against double over b in [-8, 8]). For b far
/// below -87 the clamped exp gives b / 6e37 instead of -0: below 1e-30 in magnitude either way.
inline float silu(float b) {
  return b / (1.0f + exp_approx(-b));
}

void swiglu_row(const float* __restrict a, const float* __restrict b, float* __restrict out, std::size_t n) {
  std::size_t j = 0;
  for (; j + block <= n; j += block) {
    for (std::size_t k = 0; k < block; ++k) out[j + k] = a[j + k] * silu(b[j + k]);
  }
  for (; j < n; ++j) out[j] = a[j] * silu(b[j]);
}

}  // namespace

launcher bind_swiglu_cpu(const kernel_args& args) {
  auto device = std::dynamic_pointer_cast<cpu::cpu_device>(args.device);
  if (!device) {
    KBENCH_THROW("swiglu/cpu needs a cpu device, got {}",
                 args.device ? to_string(args.device->info().backend) : "no device");
  }
  if (args.shape.size() != 2) KBENCH_THROW("swiglu/cpu: shape {} is not [M, N]", to_string(args.shape));
  if (args.inputs.size() != 1) KBENCH_THROW("swiglu/cpu takes 1 input, got {}", args.inputs.size());
  const auto rows = static_cast<std::size_t>(args.shape[0]);
  const auto cols = static_cast<std::size_t>(args.shape[1]);  // output columns N; an input row holds 2N
  const auto grain = static_cast<std::size_t>(args.config.at("GRAIN"));  // [rows per chunk, at least]
  if (grain == 0) KBENCH_THROW("swiglu/cpu: GRAIN must be positive");
  if (args.inputs[0]->size_bytes() < rows * 2 * cols * sizeof(float)) {
    KBENCH_THROW("swiglu/cpu: input holds {} bytes, output shape {} needs {}", args.inputs[0]->size_bytes(),
                 to_string(args.shape), rows * 2 * cols * sizeof(float));
  }
  buffer_ptr input = args.inputs[0];
  buffer_ptr output = device->allocate(rows * cols * sizeof(float));
  return [device, input, output, rows, cols, grain]() {
    const float* x = cpu::float_data(input);
    float* y = cpu::float_data(output);
    event_ptr done = device->launch([=](const cpu::parallel_context& ctx) {
      ctx.parallel_for(rows, grain, [=](std::size_t begin, std::size_t end) {
        for (std::size_t r = begin; r < end; ++r) {
          const float* a = x + r * 2 * cols;
          swiglu_row(a, a + cols, y + r * cols, cols);
        }
      });
    });
    return call_result{{done}, {output}};
  };
}

}  // namespace kbench::kernels
