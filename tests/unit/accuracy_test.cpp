// The suite's accuracy rule, one for every kernel: float32 host tensors (C++ kernels) and float64 values of
// any dtype (Python kernels, through the binding).

#include <kbench/suite/accuracy.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace kbench {
using namespace suite;  // the suite's kernel API, unqualified
namespace {

TEST(Accuracy, Float64ValuesPassWithinTheToleranceAndCountTheElementsOutside) {
  const std::vector<double> want{1.0, 2.0, 3.0, 4.0};
  const std::vector<double> near{1.0 + 1e-7, 2.0, 3.0, 4.0};
  const std::vector<double> off{1.0, 2.5, 3.0, 5.0};
  const output_values reference{want, {2, 2}};
  const std::vector<output_values> expected{reference};

  const std::vector<output_values> close{{near, {2, 2}}};
  EXPECT_TRUE(check_accuracy(close, expected, tolerance{1e-5, 1e-5, 0}).passed);

  const std::vector<output_values> wrong{{off, {2, 2}}};
  const accuracy_report report = check_accuracy(wrong, expected, tolerance{1e-5, 1e-5, 0});
  EXPECT_FALSE(report.passed);
  EXPECT_EQ(report.mismatches, 2U);
  EXPECT_EQ(report.elements, 4U);
  EXPECT_DOUBLE_EQ(report.max_abs_error, 1.0);
  EXPECT_NE(report.message.find("2 of 4 elements outside atol"), std::string::npos) << report.message;
  // The same outputs pass when half the elements may mismatch.
  EXPECT_TRUE(check_accuracy(wrong, expected, tolerance{1e-5, 1e-5, 0.5}).passed);
}

TEST(Accuracy, IntegersBeyondFloat32PrecisionAreComparedExactly) {
  // 2^24 + 1 has no float32; as float64 it differs from 2^24 by one, which atol 0 must catch.
  const std::vector<double> want{16777217.0};
  const std::vector<double> got{16777216.0};
  const std::vector<output_values> g{{got, {1}}};
  const std::vector<output_values> w{{want, {1}}};
  EXPECT_FALSE(check_accuracy(g, w, tolerance{0, 0, 0}).passed);
  EXPECT_TRUE(check_accuracy(w, w, tolerance{0, 0, 0}).passed);
}

TEST(Accuracy, NanPassesOnlyWhereTheReferenceHasNan) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<double> want{nan, 1.0};
  const std::vector<double> both{nan, 1.0};
  const std::vector<double> extra{nan, nan};
  const std::vector<output_values> w{{want, {2}}};
  const std::vector<output_values> ok{{both, {2}}};
  const std::vector<output_values> bad{{extra, {2}}};
  EXPECT_TRUE(check_accuracy(ok, w, tolerance{}).passed);
  EXPECT_EQ(check_accuracy(bad, w, tolerance{}).mismatches, 1U);
}

TEST(Accuracy, ShapesAndOutputCountsMustMatch) {
  const std::vector<double> values{1, 2, 3, 4};
  const std::vector<output_values> square{{values, {2, 2}}};
  const std::vector<output_values> flat{{values, {4}}};
  const accuracy_report shape = check_accuracy(flat, square, tolerance{});
  EXPECT_FALSE(shape.passed);
  EXPECT_NE(shape.message.find("output 0 has shape [4], the reference's is [2,2]"), std::string::npos)
      << shape.message;
  const std::vector<output_values> none;
  EXPECT_NE(check_accuracy(none, square, tolerance{}).message.find("0 outputs, the reference has 1"),
            std::string::npos);
}

TEST(Accuracy, Float32TensorsFollowTheSameRule) {
  host_tensor want({3});
  want.values = {1.0f, 2.0f, 3.0f};
  host_tensor got = want;
  got.values[1] = 2.1f;
  const accuracy_report report = check_accuracy({got}, {want}, tolerance{1e-5, 1e-5, 0});
  EXPECT_FALSE(report.passed);
  EXPECT_EQ(report.mismatches, 1U);
  EXPECT_NE(report.message.find("1 of 3 elements outside atol"), std::string::npos) << report.message;
}

}  // namespace
}  // namespace kbench
