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

struct poll_outcome {
  bool ready = false;
  int steps = 0;
};

/// Polls for steps_until_ready steps; each step sleeps step_time and then returns `after_step()`.
template <class AfterStep>
poll_outcome poll_slow_steps(const AfterStep& after_step) {
  poll_outcome outcome;
  outcome.ready = poll_until([&] { return outcome.steps >= steps_until_ready; },
                             [&] {
                               std::this_thread::sleep_for(step_time);
                               ++outcome.steps;
                               return after_step();
                             });
  return outcome;
}

TEST(CpuPoll, GivesUpAfterItsBudgetOfWaiting) {
  const poll_outcome outcome = poll_slow_steps([] {});
  EXPECT_FALSE(outcome.ready);
  EXPECT_LT(outcome.steps, steps_until_ready);
}

TEST(CpuPoll, AStepThatDidSomeOfTheWorkStartsTheBudgetAgain) {
  const poll_outcome outcome = poll_slow_steps([] { return true; });
  EXPECT_TRUE(outcome.ready);
  EXPECT_EQ(outcome.steps, steps_until_ready);
}

TEST(CpuPoll, AStepThatOnlyWaitedDoesNot) {
  const poll_outcome outcome = poll_slow_steps([] { return false; });
  EXPECT_FALSE(outcome.ready);
  EXPECT_LT(outcome.steps, steps_until_ready);
}

}  // namespace
}  // namespace kbench::cpu
