// UNROLL of the cpu row kernels (sum, layer_norm, rms_norm, welford, softmax_two_pass, batch_softmax): a row
// is read UNROLL vectors per step into UNROLL accumulators, which are then folded into one (simd::fold,
// welford's merge_vectors). tuning_space_test.cpp binds only a sample of each space, so these tests run every
// UNROLL (1, 2, 4) for sse2 and the host's best ISA against the torch reference, on the first shape and on
// rows of 1100 floats: with AVX2 and UNROLL 4 that is 34 steps of 32 floats (sum adds its accumulators into
// a double every 16 steps: three blocks), then one whole vector and 4 single floats.

#include <kbench/accuracy.hpp>
#include <kbench/backend_registry.hpp>
#include <kbench/bound_kernel.hpp>
#include <kbench/registry.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace kbench {
namespace {

TEST(RowKernelUnroll, EveryUnrollMatchesTheTorchReference) {
  const device_ptr device = open_device(backend_kind::cpu);
  for (const std::string name :
       {"sum", "layer_norm", "rms_norm", "welford", "softmax_two_pass", "batch_softmax"}) {
    const kernel_definition& kernel = find_kernel(name);
    const implementation& impl = *kernel.find(backend_kind::cpu);
    shape long_rows = kernel.shapes.front();
    long_rows.back() = 1100;
    for (const shape& s : {kernel.shapes.front(), long_rows}) {
      const auto inputs = kernel.make_inputs(s, 91);
      const auto expected = kernel.reference(inputs);
      for (const std::int64_t isa : {std::int64_t{0}, impl.default_config.at("ISA")}) {
        for (const std::int64_t unroll : {1, 2, 4}) {
          config cfg = impl.default_config;
          cfg["ISA"] = isa;
          cfg["UNROLL"] = unroll;
          SCOPED_TRACE(testing::Message() << name << " " << to_string(s) << " " << to_json_text(cfg));
          const bound_kernel bound(kernel, impl, device, s, inputs, cfg);
          const accuracy_report report =
              check_accuracy(bound.run_and_read(expected), expected, kernel.tolerance);
          EXPECT_TRUE(report.passed) << report.message;
        }
      }
    }
  }
}

}  // namespace
}  // namespace kbench
