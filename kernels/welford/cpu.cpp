// welford on the cpu backend: rows split over the thread pool (GRAIN rows per chunk at least). Per row, one
// pass of Welford updates in 16 independent lanes (lane j takes elements j, j + 16, ...; contiguous 16-float
// steps the compiler vectorizes), the lanes merged with Chan's formula in a tree, then a second pass writes
// y = (x - mean) * rstd * w + b.
// Inner loops run over a fixed 16 elements with __restrict__ pointers: the -O2 build only vectorizes loops
// whose trip count is a known multiple of the vector width and that need no run-time alias check.

#include <kbench/backends/cpu.hpp>
#include <kbench/error.hpp>

#include "welford.hpp"

#include <cmath>
#include <cstdint>

namespace kbench::kernels {

namespace {

constexpr std::size_t lanes = 16;
constexpr float eps = 1e-5f;

// Count, mean and m2 (sum of squared deviations from the mean) of a set of values.
struct moments {
  float count = 0;  // exact in float up to 2^24 elements
  float mean = 0;
  float m2 = 0;
};

// Chan, Golub and LeVeque: the moments of the union of two disjoint sets.
moments merge(const moments& a, const moments& b) {
  if (b.count == 0) return a;
  if (a.count == 0) return b;
  const float count = a.count + b.count;
  const float delta = b.mean - a.mean;
  const float b_share = b.count / count;
  return {count, a.mean + delta * b_share, a.m2 + b.m2 + delta * delta * a.count * b_share};
}

moments row_moments(const float* __restrict__ x, std::size_t n) {
  float mean[lanes] = {};
  float m2[lanes] = {};
  float count = 0;  // every lane has seen the same number of elements
  std::size_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    count += 1.0f;
    const float inv = 1.0f / count;
    for (std::size_t j = 0; j < lanes; ++j) {
      const float delta = x[i + j] - mean[j];
      mean[j] += delta * inv;
      m2[j] += delta * (x[i + j] - mean[j]);
    }
  }
  // Tree merge of the lanes (16 -> 8 -> 4 -> 2 -> 1): equal counts at every level keep the merges balanced.
  moments part[lanes];
  for (std::size_t j = 0; j < lanes; ++j) part[j] = {count, mean[j], m2[j]};
  for (std::size_t width = lanes / 2; width > 0; width /= 2) {
    for (std::size_t j = 0; j < width; ++j) part[j] = merge(part[j], part[j + width]);
  }
  moments tail;  // the last n % 16 elements, plain Welford
  for (; i < n; ++i) {
    tail.count += 1.0f;
    const float delta = x[i] - tail.mean;
    tail.mean += delta / tail.count;
    tail.m2 += delta * (x[i] - tail.mean);
  }
  return merge(part[0], tail);
}

void normalize_row(const float* __restrict__ x, const float* __restrict__ w, const float* __restrict__ b,
                   float* __restrict__ y, std::size_t n, float mean, float rstd) {
  std::size_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    for (std::size_t j = 0; j < lanes; ++j) y[i + j] = (x[i + j] - mean) * rstd * w[i + j] + b[i + j];
  }
  for (; i < n; ++i) y[i] = (x[i] - mean) * rstd * w[i] + b[i];
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
  const auto found = args.config.find("GRAIN");
  const std::int64_t grain = found == args.config.end() ? 8 : found->second;  // [rows per chunk, at least]
  if (grain <= 0) KBENCH_THROW("welford/cpu: GRAIN must be positive, got {}", grain);

  buffer_ptr input = args.inputs[0];
  buffer_ptr weight = args.inputs[1];
  buffer_ptr bias = args.inputs[2];
  buffer_ptr output = device->allocate(bytes);
  return [device, input, weight, bias, output, rows, cols, grain = static_cast<std::size_t>(grain)]() {
    const float* x = cpu::float_data(input);
    const float* w = cpu::float_data(weight);
    const float* b = cpu::float_data(bias);
    float* y = cpu::float_data(output);
    event_ptr done = device->launch([=](const cpu::parallel_context& ctx) {
      ctx.parallel_for(rows, grain, [=](std::size_t begin, std::size_t end) {
        for (std::size_t r = begin; r < end; ++r) {
          const moments m = row_moments(x + r * cols, cols);
          const float var = m.m2 / m.count;  // biased, as torch's layer_norm
          normalize_row(x + r * cols, w, b, y + r * cols, cols, m.mean, 1.0f / std::sqrt(var + eps));
        }
      });
    });
    return call_result{{done}, {output}};
  };
}

}  // namespace kbench::kernels
