// UNROLL of the cpu row kernels (sum, layer_norm, rms_norm, welford, softmax_two_pass, batch_softmax): a row
// is read UNROLL vectors per step into UNROLL accumulators, which are then folded into one (simd::fold,
// welford's merge_vectors). tuning_space_test.cpp binds only a sample of each space, so these tests run every
// UNROLL (1, 2, 4) for sse2 and the host's best ISA against the torch reference, on the first shape and on
// rows of 1100 floats: with AVX2 and UNROLL 4 that is 34 steps of 32 floats (sum adds its accumulators into
// a double every 16 steps: three blocks), then one whole vector and 4 single floats.

#include "cpu_config_combinations.hpp"

#include <kbench/suite/registry.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace kbench {
using namespace suite;  // the suite's kernel API, unqualified
namespace {

TEST(RowKernelUnroll, EveryUnrollMatchesTheTorchReference) {
  for (const std::string name :
       {"sum", "layer_norm", "rms_norm", "welford", "softmax_two_pass", "batch_softmax"}) {
    const kernel_definition& kernel = find_kernel(name);
    const std::int64_t best_isa = kernel.find(backend_kind::cpu)->default_config.at("ISA");
    shape long_rows = kernel.shapes.front();
    long_rows.back() = 1100;
    for (const shape& s : {kernel.shapes.front(), long_rows}) {
      expect_every_combination_matches(kernel, s, kernel.make_inputs(s, 91),
                                       {{"ISA", {0, best_isa}}, {"UNROLL", {1, 2, 4}}});
    }
  }
}

}  // namespace
}  // namespace kbench
