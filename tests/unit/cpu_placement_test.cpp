// Where the cpu backend's threads run (backends/cpu/placement.hpp): a host thread that waits for a kernel on
// the dispatcher's cpu steps off it, and keeps its affinity mask.

#include <kbench/backends/cpu.hpp>

#include "backends/cpu/placement.hpp"

#include <gtest/gtest.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>

#include <thread>

namespace kbench::cpu {
namespace {

cpu_set_t affinity_of_this_thread() {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  EXPECT_EQ(pthread_getaffinity_np(pthread_self(), sizeof(mask), &mask), 0);
  return mask;
}

/// Puts the calling thread on `cpu` and then gives it back `mask`: where the scheduler may leave a host.
void place_on(int cpu, const cpu_set_t& mask) {
  bind_current_thread(cpu);
  ASSERT_EQ(sched_getcpu(), cpu);
  ASSERT_EQ(pthread_setaffinity_np(pthread_self(), sizeof(mask), &mask), 0);
}

TEST(CpuPlacement, AHostWaitingOnTheDispatchersCpuStepsOffItAndKeepsItsMask) {
  const int dispatcher_cpu = cpu_for_pool_thread(0);
  if (dispatcher_cpu < 0) GTEST_SKIP() << "this process may run on one cpu only: nowhere to step off to";
  // A thread of its own, so the test runner's main thread keeps its placement.
  std::thread host([&] {
    const cpu_set_t mask = affinity_of_this_thread();
    cpu_device device(2);
    for (int round = 0; round < 3; ++round) {  // the event's wait, then the barrier's
      place_on(dispatcher_cpu, mask);
      event_ptr done = device.launch([](const parallel_context&) {});
      if (round == 1) {
        device.barrier();
      } else {
        done->wait();
      }
      EXPECT_NE(sched_getcpu(), dispatcher_cpu) << "round " << round;
      const cpu_set_t after = affinity_of_this_thread();
      EXPECT_TRUE(CPU_EQUAL(&after, &mask)) << "round " << round;
    }
  });
  host.join();
}

TEST(CpuPlacement, StepOffDoesNothingWhenTheMaskAllowsThatCpuOnly) {
  const int cpu = cpu_for_pool_thread(0);
  if (cpu < 0) GTEST_SKIP() << "this process may run on one cpu only";
  std::thread host([&] {
    bind_current_thread(cpu);
    step_off_cpu(cpu);
    EXPECT_EQ(sched_getcpu(), cpu);
  });
  host.join();
}

TEST(CpuPlacement, BindingIsOffWithKbenchCpuBindZero) {
  ASSERT_EQ(setenv("KBENCH_CPU_BIND", "0", 1), 0);
  EXPECT_EQ(cpu_for_pool_thread(0), -1);
  EXPECT_EQ(cpu_for_pool_thread(1), -1);
  ASSERT_EQ(unsetenv("KBENCH_CPU_BIND"), 0);
}

}  // namespace
}  // namespace kbench::cpu
