// run_shape times a STREAM triad in the same interleaved turns as a large shape's implementations
// (run_shape.hpp, triad_probe.hpp): one triad sample per kbench sample, with the store kind asked for; a
// shape below the size, a compute-bound one, or a run without a store kind, gets none. The kernel is a test
// double, y = -x on the cpu backend (support/negate_kernel.hpp), small enough for a test: the size rule is
// lowered to it.

#include "support/negate_kernel.hpp"

#include <kbench/suite/run_shape.hpp>
#include <kbench/suite/triad_probe.hpp>

#include <gtest/gtest.h>

#include <cstddef>

namespace kbench::test {
using namespace kbench::suite;  // the suite's kernel API, unqualified
namespace {

constexpr std::size_t floats = std::size_t{1} << 16;

suite::shape_options kbench_only() {
  suite::shape_options options;
  options.backend = backend_kind::cpu;
  options.run_torch = false;  // the double has no torch baseline
  options.target_ms = 5;
  options.triad_elements = floats;
  return options;
}

TEST(TriadBesideShape, ALargeShapeTimesATriadInItsTurns) {
  auto options = kbench_only();
  options.triad_stores = stores_non_temporal;
  options.triad_min_bytes = 1;  // every shape is "large"
  const suite::shape_result r = suite::run_shape(negate_kernel(floats), 0, options);
  ASSERT_EQ(r.status, suite::shape_status::ok) << r.reason;
  ASSERT_TRUE(r.kbench.has_value());
  ASSERT_TRUE(r.triad.has_value());
  EXPECT_EQ(r.triad->latency_ms.size(), r.kbench->latency_ms.size()) << "one triad sample per kbench sample";
  EXPECT_NE(r.triad->latency_ms, r.kbench->latency_ms) << "the triad's own calls, not a copy of kbench's";
  EXPECT_EQ(r.triad->stores, stores_non_temporal);
  EXPECT_DOUBLE_EQ(r.triad->bytes_per_call, 3.0 * floats * sizeof(float));
  ASSERT_TRUE(r.triad_fraction().has_value());
  EXPECT_GT(*r.triad_fraction(), 0.0);
}

TEST(TriadBesideShape, ASmallerShapeOrARunWithoutStoresGetsNone) {
  auto below = kbench_only();
  below.triad_stores = stores_normal;
  below.triad_min_bytes = 2.0 * floats * sizeof(float) + 1;  // one byte more than the shape moves
  const suite::shape_result small = suite::run_shape(negate_kernel(floats), 0, below);
  ASSERT_EQ(small.status, suite::shape_status::ok) << small.reason;
  EXPECT_FALSE(small.triad.has_value());

  auto no_stores = kbench_only();
  no_stores.triad_min_bytes = 1;
  const suite::shape_result plain = suite::run_shape(negate_kernel(floats), 0, no_stores);
  ASSERT_EQ(plain.status, suite::shape_status::ok) << plain.reason;
  EXPECT_FALSE(plain.triad.has_value());
}

TEST(TriadBesideShape, AComputeBoundShapeGetsNoneAndItsGflops) {
  auto options = kbench_only();
  options.triad_stores = stores_normal;
  options.triad_min_bytes = 1;
  kernel_definition kernel = negate_kernel(floats);
  // As many operations per byte as make a shape compute bound (as bmm's do).
  kernel.flops = [](const shape&) {
    return suite::compute_bound_flops_per_byte * 2.0 * floats * sizeof(float);
  };
  const suite::shape_result r = suite::run_shape(kernel, 0, options);
  ASSERT_EQ(r.status, suite::shape_status::ok) << r.reason;
  EXPECT_TRUE(r.compute_bound());
  EXPECT_FALSE(r.triad.has_value());
  ASSERT_TRUE(r.gflops().has_value());
  EXPECT_GT(*r.gflops(), 0.0);
}

}  // namespace
}  // namespace kbench::test
