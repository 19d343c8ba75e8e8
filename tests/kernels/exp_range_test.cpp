// exp on the cpu backend over the whole float range, beyond the suite's inputs (x in [-8, 8)): every ISA
// the machine runs must overflow to inf above ~88.72, go through the denormals to 0 below ~-87.3, and keep
// its error at a couple of ulp in between, against exp in double. The ISAs scale by 2^n differently
// (AVX-512: vscalefps; SSE2 and AVX2: two exponent-built factors), so each is checked.

#include <kbench/backends/registry.hpp>
#include <kbench/suite/bound_kernel.hpp>
#include <kbench/suite/registry.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace kbench {
using namespace suite;  // the suite's kernel API, unqualified
namespace {

constexpr std::size_t count = 8192;  // elements per run: several tasks and a partial last vector below

/// exp(x) on the cpu backend under `cfg`.
std::vector<float> exp_on_cpu(const std::vector<float>& x, const config& cfg) {
  const kernel_definition& kernel = find_kernel("exp");
  const shape s{static_cast<std::int64_t>(x.size())};
  auto inputs = kernel.make_inputs(s, 0);
  inputs.at(0).values = x;
  const std::vector<host_tensor> shapes_only{host_tensor(s)};
  const bound_kernel bound(kernel, *kernel.find(backend_kind::cpu), open_device(backend_kind::cpu), s, inputs,
                           cfg);
  return bound.run_and_read(shapes_only).at(0).values;
}

/// ISA 0 (SSE2) up to the best the machine runs (the default config's), tasks of 1000 elements.
std::vector<config> configs_to_check() {
  const config best = find_kernel("exp").find(backend_kind::cpu)->default_config;
  std::vector<config> configs;
  for (std::int64_t isa = 0; isa <= best.at("ISA"); ++isa) {
    configs.push_back({{"ISA", isa}, {"STREAM", 0}, {"TASK", 1000}});
  }
  return configs;
}

TEST(ExpCpu, EveryIsaIsAccurateFromTheDenormalsToOverflow) {
  // x from -110 to 95 in even steps (0.025): through the denormals (below -87.34), to 0 (below -103.97) and
  // past overflow (above 88.72).
  std::vector<float> x(count);
  for (std::size_t i = 0; i < count; ++i) {
    x[i] = -110.0f + 205.0f * static_cast<float>(i) / static_cast<float>(count);
  }
  constexpr double smallest_normal = std::numeric_limits<float>::min();
  constexpr double denormal_step = std::numeric_limits<float>::denorm_min();
  for (const config& cfg : configs_to_check()) {
    const std::vector<float> got = exp_on_cpu(x, cfg);
    for (std::size_t i = 0; i < count; ++i) {
      const double exact = std::exp(static_cast<double>(x[i]));
      const float expected = static_cast<float>(exact);
      if (std::isinf(expected)) {
        ASSERT_EQ(got[i], expected) << "x = " << x[i] << ", ISA " << cfg.at("ISA");
        continue;
      }
      // 2.5 ulp in the normal range (the polynomial's ~1.5 ulp and the rounding); one step of the denormal
      // grid below it, where a result has fewer bits.
      const double tolerance = exact >= smallest_normal ? 2.5 * 0x1p-23 * exact : denormal_step;
      ASSERT_LE(std::abs(static_cast<double>(got[i]) - exact), tolerance)
          << "x = " << x[i] << ": " << got[i] << " against " << exact << ", ISA " << cfg.at("ISA");
    }
  }
}

TEST(ExpCpu, EveryIsaGivesLibmsSpecialValues) {
  constexpr float inf = std::numeric_limits<float>::infinity();
  std::vector<float> x(count, 1.0f);
  x[0] = inf;
  x[1] = -inf;
  x[2] = std::numeric_limits<float>::quiet_NaN();
  x[3] = 1e30f;
  x[4] = -1e30f;
  x[5] = -0.0f;
  x[6] = 88.7f;    // just below overflow: finite
  x[7] = -103.0f;  // a denormal
  for (const config& cfg : configs_to_check()) {
    const std::vector<float> got = exp_on_cpu(x, cfg);
    EXPECT_EQ(got[0], inf) << "ISA " << cfg.at("ISA");
    EXPECT_EQ(got[1], 0.0f) << "ISA " << cfg.at("ISA");
    EXPECT_TRUE(std::isnan(got[2])) << got[2] << ", ISA " << cfg.at("ISA");
    EXPECT_EQ(got[3], inf) << "ISA " << cfg.at("ISA");
    EXPECT_EQ(got[4], 0.0f) << "ISA " << cfg.at("ISA");
    EXPECT_EQ(got[5], 1.0f) << "ISA " << cfg.at("ISA");
    EXPECT_TRUE(std::isfinite(got[6])) << got[6] << ", ISA " << cfg.at("ISA");
    EXPECT_GT(got[7], 0.0f) << "ISA " << cfg.at("ISA");
    EXPECT_LT(got[7], std::numeric_limits<float>::min()) << "ISA " << cfg.at("ISA");
  }
}

}  // namespace
}  // namespace kbench
