// The time limit a tuning trial fits its timing to: the config timeout, or what is left of the time budget.

#include <kbench/suite/tune_shape.hpp>

#include <gtest/gtest.h>

namespace kbench::suite {
namespace {

TEST(TrialTimeLimit, WithoutABudgetItIsTheTimeout) {
  EXPECT_DOUBLE_EQ(trial_time_limit_s(60, 0, 5000), 60);
}

TEST(TrialTimeLimit, ItIsWhatIsLeftOfTheBudgetWhenThatIsLess) {
  EXPECT_DOUBLE_EQ(trial_time_limit_s(60, 900, 100), 60);  // 800 s left: the timeout
  EXPECT_DOUBLE_EQ(trial_time_limit_s(60, 900, 870), 30);  // 30 s left
  EXPECT_DOUBLE_EQ(trial_time_limit_s(120, 900, 800), 100);
}

TEST(TrialTimeLimit, ASpentBudgetStillLeavesOneSecond) {
  // The tuner proposes no config once the budget is spent; one proposed just before gets a round of calls.
  EXPECT_DOUBLE_EQ(trial_time_limit_s(60, 900, 899.5), 1);
  EXPECT_DOUBLE_EQ(trial_time_limit_s(60, 900, 950), 1);
  EXPECT_DOUBLE_EQ(trial_time_limit_s(0.5, 900, 950), 0.5) << "never above the timeout";
}

}  // namespace
}  // namespace kbench::suite
