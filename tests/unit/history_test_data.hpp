#pragma once
// Test data for the history, regression and compare tests: v3 records made by kbench's own record writer,
// and seeded synthetic series (reproducible across standard libraries).

#include <kbench/io/json_v3.hpp>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <numbers>
#include <random>
#include <string>
#include <vector>

namespace kbench::test {

/// A standard normal draw by Box-Muller (std::normal_distribution differs between standard libraries).
inline double standard_normal(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  const double u1 = 1.0 - uniform(rng);
  const double u2 = uniform(rng);
  return std::sqrt(-2 * std::log(u1)) * std::cos(2 * std::numbers::pi * u2);
}

/// `n` log-normal values with mean about `mean` and coefficient of variation `cv`; values from index
/// `step_at` on are multiplied by `step`.
inline std::vector<double> lognormal_values(std::uint64_t seed, std::size_t n, double mean, double cv,
                                            std::size_t step_at = SIZE_MAX, double step = 1.0) {
  std::mt19937_64 rng(seed);
  const double sigma = std::sqrt(std::log1p(cv * cv));
  std::vector<double> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    out[i] = (i >= step_at ? step : 1.0) * mean * std::exp(sigma * standard_normal(rng) - sigma * sigma / 2);
  }
  return out;
}

/// The records of one `kbench run` of exp on the cpu backend at `timestamp`: per shape, kbench-cpu and torch
/// latency_ms (10 samples), throughput_ms (3) and accuracy, and kbench's speedup; latencies scaled by
/// `scale`.
inline nlohmann::json sample_run(std::int64_t timestamp, double scale, std::uint64_t seed = 1) {
  nlohmann::json out = nlohmann::json::array();
  device_info cpu;
  cpu.backend = backend_kind::cpu;
  cpu.name = "Test CPU";
  cpu.platform = "kbench thread pool";
  device_info torch = cpu;
  torch.backend = backend_kind::torch;
  std::uint64_t s = seed;
  for (const char* shape : {"[1024]", "[4096]"}) {
    for (const auto& device : {cpu, torch}) {
      io::record_context context;
      context.kernel = "exp";
      context.shape = shape;
      context.device = device;
      context.timestamp = timestamp;
      context.extra = {{"command", "run"}};
      const double base = device.backend == backend_kind::torch ? 0.02 : 0.01;  // [ms]
      out.push_back(io::make_record(context, "latency_ms", lognormal_values(++s, 10, base * scale, 0.02),
                                    {{"stat", "median"}}));
      out.push_back(io::make_record(context, "throughput_ms", lognormal_values(++s, 3, base * scale, 0.02)));
      out.push_back(io::make_record(context, "accuracy", {1.0}));
      if (device.backend != backend_kind::torch)
        out.push_back(io::make_record(context, "speedup", {2.0 / scale}));
    }
  }
  return out;
}

}  // namespace kbench::test
