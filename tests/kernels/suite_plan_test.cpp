// Which kernel x shape pairs `kbench run` selects.

#include <kbench/error.hpp>
#include <kbench/suite/registry.hpp>
#include <kbench/suite/suite.hpp>

#include <gtest/gtest.h>

namespace kbench::suite {
namespace {

std::size_t total_shapes() {
  std::size_t n = 0;
  for (const auto& k : all_kernels()) n += k.shapes.size();
  return n;
}

TEST(SuitePlan, DefaultIsEveryShapeOfEveryKernelInOrder) {
  const auto plan = plan_suite({});
  ASSERT_EQ(plan.size(), total_shapes());
  for (std::size_t i = 1; i < plan.size(); ++i) {
    const bool same_kernel = plan[i].kernel == plan[i - 1].kernel;
    EXPECT_TRUE(same_kernel ? plan[i].shape_index == plan[i - 1].shape_index + 1 : plan[i].shape_index == 0);
  }
}

TEST(SuitePlan, NumShapesAndShapeIndexSelect) {
  suite_selection first_two;
  first_two.kernels = {"exp"};
  first_two.num_shapes = 2;
  const auto plan = plan_suite(first_two);
  ASSERT_EQ(plan.size(), 2U);
  EXPECT_EQ(plan[1].shape_index, 1U);

  suite_selection only_third;
  only_third.shape_index = 2;
  for (const auto& item : plan_suite(only_third)) EXPECT_EQ(item.shape_index, 2U);
}

TEST(SuitePlan, AShapeSelectsTheKernelsThatHaveIt) {
  suite_selection rows;
  rows.kernels = {"softmax_two_pass", "geglu", "exp"};
  rows.shape = "1024x512";  // any form parse_shape reads
  const auto plan = plan_suite(rows);
  ASSERT_EQ(plan.size(), 2U) << "exp has no [1024,512]";
  for (const auto& item : plan) EXPECT_EQ(item.kernel->shapes.at(item.shape_index), (shape{1024, 512}));
  EXPECT_EQ(plan[0].kernel->name, "softmax_two_pass");
  EXPECT_EQ(plan[1].kernel->name, "geglu");

  suite_selection missing;
  missing.kernels = {"exp"};
  missing.shape = "[7]";
  try {
    (void)plan_suite(missing);
    ADD_FAILURE() << "a shape no selected kernel has must be refused";
  } catch (const usage_error& e) {
    EXPECT_NE(std::string(e.what()).find("no selected kernel has shape [7] (valid: exp: [1024] [4096]"),
              std::string::npos)
        << e.what();
  }
}

TEST(SuitePlan, RepeatedKernelNamesCountOnce) {
  suite_selection twice;
  twice.kernels = {"exp", "exp"};
  EXPECT_EQ(plan_suite(twice).size(), find_kernel("exp").shapes.size());
}

TEST(SuitePlan, BadSelectionsAreUsageErrors) {
  suite_selection unknown;
  unknown.kernels = {"nope"};
  EXPECT_THROW((void)plan_suite(unknown), usage_error);
  suite_selection far;
  far.shape_index = 1000;
  EXPECT_THROW((void)plan_suite(far), usage_error);
  suite_selection none;
  none.num_shapes = 0;
  EXPECT_THROW((void)plan_suite(none), usage_error);
}

}  // namespace
}  // namespace kbench::suite
