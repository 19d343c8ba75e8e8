// Which kernels declare their floating-point operations (kernel_definition::flops): bmm, compute bound on
// every shape of the suite; the memory-bound kernels declare none, so they keep their % of peak bandwidth
// and the triad beside their large shapes.

#include <kbench/suite/registry.hpp>
#include <kbench/suite/shape_result.hpp>

#include <gtest/gtest.h>

namespace kbench::test {
using namespace kbench::suite;  // the suite's kernel API, unqualified
namespace {

TEST(DeclaredFlops, BmmIsComputeBoundOnEveryShapeAndTheOtherKernelsDeclareNoFlops) {
  for (const auto& kernel : all_kernels()) {
    if (kernel.name != "bmm") {
      EXPECT_FALSE(kernel.flops) << kernel.name;
      continue;
    }
    ASSERT_TRUE(kernel.flops);
    for (const auto& s : kernel.shapes) {
      // [B, M, N, K]: 2 B M N K flop.
      EXPECT_DOUBLE_EQ(kernel.flops(s), 2.0 * static_cast<double>(s[0] * s[1] * s[2] * s[3]));
      EXPECT_GE(kernel.flops(s) / kernel.bytes_moved(s), suite::compute_bound_flops_per_byte) << to_string(s);
    }
  }
}

}  // namespace
}  // namespace kbench::test
