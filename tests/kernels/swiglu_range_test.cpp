// swiglu on the cpu backend beyond the suite's inputs (b in [-4, 4)): its silu uses simd::exp, a degree-5
// polynomial after the range reduction with its argument clamped to [-87, 88], so these tests check silu
// over the whole range where the polynomial and both clamps act, against exp in double, and at the special
// values against torch.

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

/// The input x = [a | b] with a = 1 and `b` (rows * cols values).
std::vector<host_tensor> inputs_with_b(const std::vector<float>& b) {
  const kernel_definition& kernel = find_kernel("swiglu");
  auto inputs =
      kernel.make_inputs(shape{static_cast<std::int64_t>(rows), static_cast<std::int64_t>(cols)}, 0);
  std::vector<float>& x = inputs.at(0).values;
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t c = 0; c < cols; ++c) {
      x[r * 2 * cols + c] = 1.0f;                    // a
      x[r * 2 * cols + cols + c] = b[r * cols + c];  // b
    }
  }
  return inputs;
}

/// out = a * silu(b) on the cpu backend with a = 1, under `cfg`.
std::vector<float> silu_on_cpu(const std::vector<float>& b, const config& cfg) {
  const kernel_definition& kernel = find_kernel("swiglu");
  const shape s{static_cast<std::int64_t>(rows), static_cast<std::int64_t>(cols)};
  const std::vector<host_tensor> shapes_only{host_tensor(s)};
  const bound_kernel bound(kernel, *kernel.find(backend_kind::cpu), open_device(backend_kind::cpu), s,
                           inputs_with_b(b), cfg);
  return bound.run_and_read(shapes_only).at(0).values;
}

std::vector<config> configs_to_check() {
  std::vector<config> configs{{{"ISA", 0}, {"ROWS", 16}, {"STREAM", 0}}};  // sse2 runs everywhere
  config best = find_kernel("swiglu").find(backend_kind::cpu)->default_config;
  if (best.at("ISA") != 0) configs.push_back(best);
  return configs;
}

TEST(SwigluCpu, SiluStaysAccurateOverTheWholeRangeOfTheExp) {
  // b from -100 to 100 in steps of 200 / 4096: through both clamps of exp(-b) (b > 87 and b < -88).
  std::vector<float> b(rows * cols);
  for (std::size_t i = 0; i < b.size(); ++i) {
    b[i] = -100.0f + 200.0f * static_cast<float>(i) / static_cast<float>(b.size());
  }
  for (const config& cfg : configs_to_check()) {
    const std::vector<float> got = silu_on_cpu(b, cfg);
    for (std::size_t i = 0; i < b.size(); ++i) {
      const double x = b[i];
      const double expected = x / (1 + std::exp(-x));
      // The tolerance of the kernel's accuracy check (1e-5 absolute + 1e-5 relative) everywhere, and where
      // exp(-b) is not clamped 1e-6 relative: the polynomial's 1.7e-7 and the divide's rounding leave 3e-7
      // (a degree-4 polynomial, 6e-6, would fail it).
      ASSERT_LE(std::abs(got[i] - expected), 1e-5 + 1e-5 * std::abs(expected))
          << "b = " << b[i] << ", ISA " << cfg.at("ISA");
      if (std::abs(x) < 87) {
        ASSERT_LE(std::abs(got[i] - expected), 1e-6 * std::abs(expected))
            << "b = " << b[i] << ", ISA " << cfg.at("ISA");
      }
    }
  }
}

TEST(SwigluCpu, SiluOfLargeFiniteValuesAndSpecialValues) {
  constexpr float inf = std::numeric_limits<float>::infinity();
  std::vector<float> b(rows * cols, 1.0f);
  b[0] = inf;
  b[1] = std::numeric_limits<float>::quiet_NaN();
  b[2] = 1e30f;   // silu(b) = b
  b[3] = -1e30f;  // silu(b) = b * exp(b), which rounds to -0: far below the absolute tolerance
  for (const config& cfg : configs_to_check()) {
    const std::vector<float> got = silu_on_cpu(b, cfg);
    EXPECT_EQ(got[0], inf) << "ISA " << cfg.at("ISA");
    EXPECT_TRUE(std::isnan(got[1])) << got[1] << ", ISA " << cfg.at("ISA");
    EXPECT_EQ(got[2], 1e30f) << "ISA " << cfg.at("ISA");
    EXPECT_LE(std::abs(got[3]), 1e-5) << "ISA " << cfg.at("ISA");
    EXPECT_NEAR(got[4], 1.0 / (1 + std::exp(-1.0)), 1e-6) << "ISA " << cfg.at("ISA");
  }
}

}  // namespace
}  // namespace kbench
