// The cpu backend's poll before blocking (backends/cpu/poll.hpp): it gives up after poll_budget of waiting,
// and a between-polls step that did some of the awaited work itself (returns true, as the host does after
// running a chunk of the kernel) starts the budget again. Here the awaited condition becomes true after ten
// steps of at least 20 us each, 200 us in all, four times the 50 us budget.

#include "backends/cpu/poll.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace kbench::cpu {
namespace {

using namespace std::chrono_literals;

constexpr int steps_until_ready = 10;
constexpr auto step_time = 20us;
static_assert(steps_until_ready * step_time > 2 * poll_budget);

TEST(CpuPoll, GivesUpAfterItsBudgetOfWaiting) {
  int steps = 0;
  const bool ready = poll_until([&] { return steps >= steps_until_ready; },
                                [&] {
                                  std::this_thread::sleep_for(step_time);
                                  ++steps;
                                });
  EXPECT_FALSE(ready);
  EXPECT_LT(steps, steps_until_ready);
}

TEST(CpuPoll, AStepThatDidSomeOfTheWorkStartsTheBudgetAgain) {
  int steps = 0;
  const bool ready = poll_until([&] { return steps >= steps_until_ready; },
                                [&] {
                                  std::this_thread::sleep_for(step_time);
                                  ++steps;
                                  return true;
                                });
  EXPECT_TRUE(ready);
  EXPECT_EQ(steps, steps_until_ready);
}

TEST(CpuPoll, AStepThatOnlyWaitedDoesNot) {
  int steps = 0;
  const bool ready = poll_until([&] { return steps >= steps_until_ready; },
                                [&] {
                                  std::this_thread::sleep_for(step_time);
                                  ++steps;
                                  return false;
                                });
  EXPECT_FALSE(ready);
  EXPECT_LT(steps, steps_until_ready);
}

}  // namespace
}  // namespace kbench::cpu
