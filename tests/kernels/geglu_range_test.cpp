// geglu on the cpu backend beyond the suite's inputs (b in [-4, 4)): its erf is a rational function that is
// accurate only on [-4, 4] and clamps its argument there, so these tests check gelu far into both tails and
// at the special values, against erf in double.

#include <kbench/backends/registry.hpp>
#include <kbench/suite/bound_kernel.hpp>
#include <kbench/suite/registry.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace kbench {
using namespace suite;  // the suite's kernel API, unqualified
namespace {

constexpr std::size_t rows = 4;
constexpr std::size_t cols = 1024;  // output columns; an input row is [a | b], 2 * cols floats

/// out = a * gelu(b) on the cpu backend for `b` (rows * cols values) with a = 1, under `cfg`.
std::vector<float> gelu_on_cpu(const std::vector<float>& b, const config& cfg) {
  const kernel_definition& kernel = find_kernel("geglu");
  const shape s{static_cast<std::int64_t>(rows), static_cast<std::int64_t>(cols)};
  auto inputs = kernel.make_inputs(s, 0);
  std::vector<float>& x = inputs.at(0).values;
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t c = 0; c < cols; ++c) {
      x[r * 2 * cols + c] = 1.0f;                    // a
      x[r * 2 * cols + cols + c] = b[r * cols + c];  // b
    }
  }
  const std::vector<host_tensor> shapes_only{host_tensor(s)};
  const bound_kernel bound(kernel, *kernel.find(backend_kind::cpu), open_device(backend_kind::cpu), s, inputs,
                           cfg);
  return bound.run_and_read(shapes_only).at(0).values;
}

std::vector<config> configs_to_check() {
  std::vector<config> configs{{{"ISA", 0}, {"ROWS", 16}, {"STREAM", 0}}};  // sse2 runs everywhere
  config best = find_kernel("geglu").find(backend_kind::cpu)->default_config;
  if (best.at("ISA") != 0) configs.push_back(best);
  return configs;
}

TEST(GegluCpu, GeluStaysAccurateFarIntoBothTails) {
  // b from -40 to 40 in steps of 80 / 4096, through the clamp at |b / sqrt(2)| = 4 (|b| = 5.66).
  std::vector<float> b(rows * cols);
  for (std::size_t i = 0; i < b.size(); ++i) {
    b[i] = -40.0f + 80.0f * static_cast<float>(i) / static_cast<float>(b.size());
  }
  for (const config& cfg : configs_to_check()) {
    const std::vector<float> got = gelu_on_cpu(b, cfg);
    for (std::size_t i = 0; i < b.size(); ++i) {
      const double x = b[i];
      const double expected = 0.5 * x * std::erfc(-x / std::sqrt(2.0));  // 0.5 x (1 + erf(x / sqrt 2))
      // The tolerance of the kernel's accuracy check (1e-5 absolute + 1e-5 relative).
      ASSERT_LE(std::abs(got[i] - expected), 1e-5 + 1e-5 * std::abs(expected))
          << "b = " << b[i] << ", ISA " << cfg.at("ISA");
    }
  }
}

TEST(GegluCpu, GeluOfInfinitiesAndNanIsTorchs) {
  // torch computes x * 0.5 * (1 + erf(x / sqrt 2)): +inf for +inf, NaN for -inf (-inf * 0) and for NaN.
  constexpr float inf = std::numeric_limits<float>::infinity();
  std::vector<float> b(rows * cols, 1.0f);
  b[0] = inf;
  b[1] = -inf;
  b[2] = std::numeric_limits<float>::quiet_NaN();
  b[cols + 7] = -1e30f;  // a finite but huge negative b: gelu rounds to -0
  for (const config& cfg : configs_to_check()) {
    const std::vector<float> got = gelu_on_cpu(b, cfg);
    EXPECT_EQ(got[0], inf) << "ISA " << cfg.at("ISA");
    EXPECT_TRUE(std::isnan(got[1])) << got[1] << ", ISA " << cfg.at("ISA");
    EXPECT_TRUE(std::isnan(got[2])) << got[2] << ", ISA " << cfg.at("ISA");
    EXPECT_EQ(got[cols + 7], 0.0f) << "ISA " << cfg.at("ISA");
    EXPECT_NEAR(got[3], 0.5 * std::erfc(-1.0 / std::sqrt(2.0)), 1e-6) << "ISA " << cfg.at("ISA");
  }
}

}  // namespace
}  // namespace kbench
