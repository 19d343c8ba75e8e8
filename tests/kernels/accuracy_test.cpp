// Every kernel's every available implementation against the torch reference, on its small shapes.

#include <kbench/accuracy.hpp>
#include <kbench/backend_registry.hpp>
#include <kbench/bound_kernel.hpp>
#include <kbench/registry.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <map>

namespace kbench {
namespace {

struct case_param {
  std::string kernel;
  backend_kind backend;
  std::size_t shape_index;
};

std::vector<case_param> small_cases() {
  std::vector<case_param> cases;
  for (const auto& kernel : all_kernels()) {
    for (const auto& impl : kernel.implementations) {
      for (std::size_t i = 0; i < std::min<std::size_t>(2, kernel.shapes.size()); ++i) {
        cases.push_back({kernel.name, impl.backend, i});
      }
    }
  }
  return cases;
}

device_ptr device_for(backend_kind kind, std::string& reason) {
  static std::map<backend_kind, backend_status> statuses = [] {
    std::map<backend_kind, backend_status> m;
    for (auto& s : probe_backends()) m[s.kind] = s;
    return m;
  }();
  const auto& status = statuses[kind];
  if (!status.available) {
    reason = status.reason;
    return nullptr;
  }
  return open_device(kind);
}

class KernelAccuracy : public testing::TestWithParam<case_param> {};

TEST_P(KernelAccuracy, MatchesTheTorchReference) {
  const auto& p = GetParam();
  std::string reason;
  device_ptr device = device_for(p.backend, reason);
  if (!device) GTEST_SKIP() << to_string(p.backend) << " unavailable here: " << reason;
  const kernel_definition& kernel = find_kernel(p.kernel);
  const shape& s = kernel.shapes[p.shape_index];
  const auto inputs = kernel.make_inputs(s, 1234);
  const auto expected = kernel.reference(inputs);
  const bound_kernel bound(kernel, *kernel.find(p.backend), device, s, inputs);
  const auto report = check_accuracy(bound.run_and_read(expected), expected, kernel.tolerance);
  EXPECT_TRUE(report.passed) << report.message;
  std::size_t expected_elements = 0;  // every element of every output was compared
  for (const auto& out : expected) expected_elements += out.size();
  EXPECT_GT(expected_elements, 0U);
  EXPECT_EQ(report.elements, expected_elements);
}

INSTANTIATE_TEST_SUITE_P(AllKernels, KernelAccuracy, testing::ValuesIn(small_cases()),
                         [](const testing::TestParamInfo<case_param>& param_info) {
                           return param_info.param.kernel + "_" +
                                  std::string(to_string(param_info.param.backend)) + "_shape" +
                                  std::to_string(param_info.param.shape_index);
                         });

TEST(AccuracyCheck, CountsMismatchesAndReportsTheWorstErrors) {
  host_tensor want({4});
  want.values = {1.0f, 2.0f, 4.0f, 0.0f};
  host_tensor got = want;
  got.values[2] = 4.5f;
  const auto report = check_accuracy({got}, {want}, tolerance{1e-5, 1e-5, 0});
  EXPECT_FALSE(report.passed);
  EXPECT_EQ(report.mismatches, 1U);
  EXPECT_DOUBLE_EQ(report.max_abs_error, 0.5);
  EXPECT_DOUBLE_EQ(report.max_rel_error, 0.125);
  EXPECT_TRUE(check_accuracy({got}, {want}, tolerance{1e-5, 1e-5, 0.25}).passed);  // 1 of 4 allowed
  got.values[3] = std::nanf("");
  EXPECT_EQ(check_accuracy({got}, {want}, tolerance{1, 1, 0}).mismatches, 1U);  // NaN never matches a number
}

}  // namespace
}  // namespace kbench
