// layer_norm on the cpu backend: rows split over the thread pool (GRAIN rows per chunk at least). Per row,
// the two-pass statistics (sum -> mean, then sum of squared deviations -> var), each a sum in 16 independent
// lanes (contiguous 16-float steps the compiler vectorizes; the lanes also shorten the float rounding
// chains), then a last pass writes y = (x - mean) * rstd * w + b. The row (<= 16 KiB here) stays in cache
// between the passes. Inner loops run over a fixed 16 elements with __restrict__ pointers: the -O2 build only
// vectorizes loops whose trip count is a known multiple of the vector width and that need no run-time alias
// check.

#include <kbench/backends/cpu.hpp>
#include <kbench/error.hpp>

#include "layer_norm.hpp"

#include <cmath>
#include <cstdint>

namespace kbench::kernels {

namespace {

constexpr std::size_t lanes = 16;
constexpr float eps = 1e-5f;

float lane_total(const float (&acc)[lanes]) {
  float t[lanes / 2];
  for (std::size_t j = 0; j < lanes / 2; ++j) t[j] = acc[j] + acc[j + lanes / 2];
  return ((t[0] + t[4]) + (t[1] + t[5])) + ((t[2] + t[6]) + (t[3] + t[7]));
}

float row_sum(const float* __restrict__ x, std::size_t n) {
  float acc[lanes] = {};
  std::size_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    for (std::size_t j = 0; j < lanes; ++j) acc[j] += x[i + j];
  }
  float sum = lane_total(acc);
  for (; i < n; ++i) sum += x[i];
  return sum;
}

float row_squared_deviations(const float* __restrict__ x, std::size_t n, float mean) {
  float acc[lanes] = {};
  std::size_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    for (std::size_t j = 0; j < lanes; ++j) {
      const float d = x[i + j] - mean;
      acc[j] += d * d;
    }
  }
  float sum = lane_total(acc);
  for (; i < n; ++i) sum += (x[i] - mean) * (x[i] - mean);
  return sum;
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

launcher bind_layer_norm_cpu(const kernel_args& args) {
  auto device = std::dynamic_pointer_cast<cpu::cpu_device>(args.device);
  if (!device) {
    KBENCH_THROW("layer_norm/cpu needs a cpu device, got {}",
                 args.device ? std::string(to_string(args.device->info().backend)) : std::string("none"));
  }
  if (args.shape.size() != 2 || args.shape[0] <= 0 || args.shape[1] <= 0) {
    KBENCH_THROW("layer_norm/cpu: shape must be [M, N] with M, N > 0, got {}", to_string(args.shape));
  }
  if (args.inputs.size() != 3 || !args.inputs[0] || !args.inputs[1] || !args.inputs[2]) {
    KBENCH_THROW("layer_norm/cpu takes 3 inputs (x, w, b), got {}", args.inputs.size());
  }
  const auto rows = static_cast<std::size_t>(args.shape[0]);
  const auto cols = static_cast<std::size_t>(args.shape[1]);
  const std::size_t bytes = rows * cols * sizeof(float);
  if (args.inputs[0]->size_bytes() < bytes || args.inputs[1]->size_bytes() < cols * sizeof(float) ||
      args.inputs[2]->size_bytes() < cols * sizeof(float)) {
    KBENCH_THROW("layer_norm/cpu: inputs too small for shape {}", to_string(args.shape));
  }
  const auto found = args.config.find("GRAIN");
  const std::int64_t grain = found == args.config.end() ? 8 : found->second;  // [rows per chunk, at least]
  if (grain <= 0) KBENCH_THROW("layer_norm/cpu: GRAIN must be positive, got {}", grain);

  buffer_ptr input = args.inputs[0];
  buffer_ptr weight = args.inputs[1];
  buffer_ptr bias = args.inputs[2];
  buffer_ptr output = device->allocate(bytes);
  return [device, input, weight, bias, output, rows, cols, grain = static_cast<std::size_t>(grain)]() {
    const float* x = cpu::float_data(input);
    const float* w = cpu::float_data(weight);
    const float* b = cpu::float_data(bias);
    float* y = cpu::float_data(output);
    const auto count = static_cast<float>(cols);
    event_ptr done = device->launch([=](const cpu::parallel_context& ctx) {
      ctx.parallel_for(rows, grain, [=](std::size_t begin, std::size_t end) {
        for (std::size_t r = begin; r < end; ++r) {
          const float* xr = x + r * cols;
          const float mean = row_sum(xr, cols) / count;
          const float var = row_squared_deviations(xr, cols, mean) / count;  // biased, as torch's layer_norm
          normalize_row(xr, w, b, y + r * cols, cols, mean, 1.0f / std::sqrt(var + eps));
        }
      });
    });
    return call_result{{done}, {output}};
  };
}

}  // namespace kbench::kernels
