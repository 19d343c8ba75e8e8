// shape_result::gflops and compute_bound: a shape whose kernel declares its floating-point operations is
// judged by GFLOP/s once it does at least compute_bound_flops_per_byte per byte moved.

#include <kbench/suite/shape_result.hpp>

#include <gtest/gtest.h>

#include <vector>

namespace kbench::suite {
namespace {

shape_result timed(double flops, double bytes_moved, std::vector<double> kbench_ms) {
  shape_result r;
  r.flops = flops;
  r.bytes_moved = bytes_moved;
  r.kbench = impl_result{};
  r.kbench->impl = "kbench";
  r.kbench->latency_ms = std::move(kbench_ms);
  return r;
}

TEST(ComputeBound, GflopsAreTheFlopsOverTheMedianLatency) {
  // 2e9 flop in a median of 10 ms: 200 GFLOP/s.
  const auto r = timed(2e9, 1e6, {12.0, 10.0, 9.0});
  ASSERT_TRUE(r.gflops().has_value());
  EXPECT_DOUBLE_EQ(*r.gflops(), 200.0);
  EXPECT_FALSE(timed(0, 1e6, {10.0}).gflops().has_value());  // the kernel declares no flops
  EXPECT_FALSE(timed(2e9, 1e6, {}).gflops().has_value());    // not timed
}

TEST(ComputeBound, FromTheThresholdOfFlopsPerByteOn) {
  const double bytes = 1e6;
  EXPECT_TRUE(timed(compute_bound_flops_per_byte * bytes, bytes, {1.0}).compute_bound());
  EXPECT_FALSE(timed(0.99 * compute_bound_flops_per_byte * bytes, bytes, {1.0}).compute_bound());
  EXPECT_FALSE(timed(1e9, 0, {1.0}).compute_bound());  // bytes unknown: no intensity
  EXPECT_FALSE(timed(0, bytes, {1.0}).compute_bound());
}

TEST(ComputeBound, TheFlopsTravelWithTheShapeResultAsJson) {
  const auto r = timed(2e9, 1e6, {1.0});
  EXPECT_DOUBLE_EQ(nlohmann::json(r).get<shape_result>().flops, 2e9);
  nlohmann::json older = r;  // a result written before flops existed reads as "not declared"
  older.erase("flops");
  EXPECT_DOUBLE_EQ(older.get<shape_result>().flops, 0.0);
}

}  // namespace
}  // namespace kbench::suite
