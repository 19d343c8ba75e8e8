// Every kernel's every available implementation against the torch reference, on its small shapes.

#include <kbench/backends/registry.hpp>
#include <kbench/error.hpp>
#include <kbench/suite/accuracy.hpp>
#include <kbench/suite/bound_kernel.hpp>
#include <kbench/suite/registry.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <map>

namespace kbench {
using namespace suite;  // the suite's kernel API, unqualified
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

/// One kernel x backend x shape: its device (the test skips when the backend is unavailable here), inputs
/// and the torch reference's outputs.
class KernelAccuracy : public testing::TestWithParam<case_param> {
 protected:
  void SetUp() override {
    std::string reason;
    m_device = device_for(GetParam().backend, reason);
    if (!m_device) GTEST_SKIP() << to_string(GetParam().backend) << " unavailable here: " << reason;
    m_inputs = kernel().make_inputs(kernel_shape(), 1234);
    m_expected = kernel().reference(m_inputs);
  }
  [[nodiscard]] const kernel_definition& kernel() const { return find_kernel(GetParam().kernel); }
  [[nodiscard]] const shape& kernel_shape() const { return kernel().shapes[GetParam().shape_index]; }
  [[nodiscard]] const implementation& impl() const { return *kernel().find(GetParam().backend); }

  device_ptr m_device;
  std::vector<host_tensor> m_inputs;
  std::vector<host_tensor> m_expected;
};

TEST_P(KernelAccuracy, MatchesTheTorchReference) {
  const bound_kernel bound(kernel(), impl(), m_device, kernel_shape(), m_inputs);
  const auto report = check_accuracy(bound.run_and_read(m_expected), m_expected, kernel().tolerance);
  EXPECT_TRUE(report.passed) << report.message;
  std::size_t expected_elements = 0;  // every element of every output was compared
  for (const auto& out : m_expected) expected_elements += out.size();
  EXPECT_GT(expected_elements, 0U);
  EXPECT_EQ(report.elements, expected_elements);
}

// The suite binds kbench and torch (and a tuning worker every config) to the same output buffers
// (kernel_args::outputs): an implementation that allocated its own instead would be timed on other memory.
TEST_P(KernelAccuracy, WritesIntoTheOutputBuffersItIsGiven) {
  const std::vector<buffer_ptr> given = allocate_outputs(*m_device, m_expected);
  const bound_kernel bound(kernel(), impl(), m_device, kernel_shape(), upload_inputs(*m_device, m_inputs), {},
                           given);
  const call_result call = bound.target().call();
  m_device->barrier();
  EXPECT_EQ(call.outputs, given);
  const auto report = check_accuracy(bound.run_and_read(m_expected), m_expected, kernel().tolerance);
  EXPECT_TRUE(report.passed) << report.message;
}

INSTANTIATE_TEST_SUITE_P(AllKernels, KernelAccuracy, testing::ValuesIn(small_cases()),
                         [](const testing::TestParamInfo<case_param>& param_info) {
                           return param_info.param.kernel + "_" +
                                  std::string(to_string(param_info.param.backend)) + "_shape" +
                                  std::to_string(param_info.param.shape_index);
                         });

TEST(OutputBuffer, AGivenBufferTooSmallForTheOutputIsAnError) {
  const device_ptr cpu = open_device(backend_kind::cpu);
  const kernel_args args{cpu, {4}, {}, {}, {cpu->allocate(12)}};
  EXPECT_THROW((void)output_buffer(args, 0, 16), error);
  EXPECT_EQ(output_buffer(args, 0, 12), args.outputs[0]);
  EXPECT_NE(output_buffer(args, 1, 16), nullptr);  // none given: a new one
}

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
