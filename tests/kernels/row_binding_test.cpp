// The opencl binding shared by the row kernels (kernels/common/opencl_rows.hpp): bad arguments are reported
// with the kernel's name, the input and the sizes, before anything is built or launched. Their results are
// checked against torch in accuracy_test.cpp.

#include <kbench/backends/registry.hpp>
#include <kbench/build_config.hpp>
#include <kbench/error.hpp>
#include <kbench/suite/registry.hpp>

#include <gtest/gtest.h>

#include <string>

namespace kbench {
using namespace suite;  // the suite's kernel API, unqualified
namespace {

#if KBENCH_HAS_OPENCL

// The message of what binding `kernel` on opencl with `args` throws, or "" if it binds.
std::string bind_error(std::string_view kernel, kernel_args args) {
  const implementation* impl = find_kernel(kernel).find(backend_kind::opencl);
  if (impl == nullptr) return "no opencl implementation";
  try {
    (void)impl->bind(args);
  } catch (const error& e) {
    return e.what();
  }
  return "";
}

class RowKernelBinding : public ::testing::Test {
 protected:
  void SetUp() override {
    try {
      m_device = open_device(backend_kind::opencl);
    } catch (const std::exception& e) {
      GTEST_SKIP() << "no opencl device: " << e.what();
    }
  }
  [[nodiscard]] buffer_ptr floats(std::size_t n) const { return m_device->allocate(n * sizeof(float)); }
  device_ptr m_device;
};

TEST_F(RowKernelBinding, AWrongInputCountNamesTheKernelAndTheCount) {
  const std::string message = bind_error("welford", {m_device, {4, 8}, {}, {floats(32)}, {}});
  EXPECT_NE(message.find("welford/opencl takes 3 inputs, got 1"), std::string::npos) << message;
}

TEST_F(RowKernelBinding, AShortRowInputNamesTheInputAndTheSizes) {
  const std::string message = bind_error("rms_norm", {m_device, {4, 8}, {}, {floats(32), floats(4)}, {}});
  EXPECT_NE(message.find("rms_norm/opencl: input 1 holds 16 bytes, shape [4,8] needs 32"), std::string::npos)
      << message;
}

TEST_F(RowKernelBinding, AWorkGroupThatIsNotAPowerOfTwoIsRejected) {
  const std::string message =
      bind_error("softmax_two_pass", {m_device, {4, 8}, {{"WG", 3}}, {floats(32)}, {}});
  EXPECT_NE(message.find("softmax_two_pass/opencl: WG=3 must be a power of two"), std::string::npos)
      << message;
}

TEST_F(RowKernelBinding, ThreeDimensionalShapesBindAsRowsOfTheLastDimension) {
  EXPECT_EQ(bind_error("batch_softmax", {m_device, {2, 3, 8}, {}, {floats(48)}, {}}), "");
  const std::string message = bind_error("batch_softmax", {m_device, {2, 3, 8}, {}, {floats(47)}, {}});
  EXPECT_NE(message.find("input 0 holds 188 bytes, shape [2,3,8] needs 192"), std::string::npos) << message;
}

#endif  // KBENCH_HAS_OPENCL

}  // namespace
}  // namespace kbench
