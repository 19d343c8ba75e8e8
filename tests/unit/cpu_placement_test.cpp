// Where the cpu backend's threads run (backends/cpu/placement.hpp): a thread steps off a cpu and keeps its
// affinity mask, and so does a host thread that waits for a kernel on the dispatcher's cpu; a host that helps
// a pool with the chunks of the helper on its cpu (thread_pool::help) never runs a chunk twice or one of a
// finished loop.

#include <kbench/backends/cpu.hpp>

#include "backends/cpu/placement.hpp"
#include "backends/cpu/thread_pool.hpp"

#include <gtest/gtest.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>

#include <atomic>
#include <iostream>
#include <thread>
#include <vector>

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

TEST(CpuPlacement, StepOffMovesTheThreadOffTheCpuAndKeepsItsMask) {
  const int cpu = cpu_for_pool_thread(0);
  if (cpu < 0) GTEST_SKIP() << "this process may run on one cpu only: nowhere to step off to";
  std::thread host([&] {
    const cpu_set_t mask = affinity_of_this_thread();
    for (int round = 0; round < 3; ++round) {
      place_on(cpu, mask);
      step_off_cpu(cpu);
      // Checked at once: from here on the scheduler may move the thread anywhere its mask allows.
      EXPECT_NE(sched_getcpu(), cpu) << "round " << round;
      const cpu_set_t after = affinity_of_this_thread();
      EXPECT_TRUE(CPU_EQUAL(&after, &mask)) << "round " << round;
    }
  });
  host.join();
}

// Where the host is once the wait has returned is not asserted: the wait steps off the dispatcher's cpu
// before it polls, but a host that blocked after its poll budget is woken by the dispatcher, and the
// scheduler may wake it on the dispatcher's cpu (under a parallel ctest it did: CI, stop 17). What the wait
// promises is that it returns and leaves the host's mask as it was.
TEST(CpuPlacement, AHostWaitingOnTheDispatchersCpuKeepsItsMask) {
  const int dispatcher_cpu = cpu_for_pool_thread(0);
  if (dispatcher_cpu < 0) GTEST_SKIP() << "this process may run on one cpu only: nowhere to step off to";
  // A thread of its own, so the test runner's main thread keeps its placement.
  std::thread host([&] {
    const cpu_set_t mask = affinity_of_this_thread();
    cpu_device device(2);
    int ended_on_the_dispatchers_cpu = 0;
    for (int round = 0; round < 3; ++round) {  // the event's wait, then the barrier's
      place_on(dispatcher_cpu, mask);
      event_ptr done = device.launch([](const parallel_context&) {});
      if (round == 1) {
        device.barrier();
      } else {
        done->wait();
      }
      EXPECT_TRUE(done->is_complete()) << "round " << round;
      if (sched_getcpu() == dispatcher_cpu) ++ended_on_the_dispatchers_cpu;
      const cpu_set_t after = affinity_of_this_thread();
      EXPECT_TRUE(CPU_EQUAL(&after, &mask)) << "round " << round;
    }
    std::cout << "waits that ended on the dispatcher's cpu: " << ended_on_the_dispatchers_cpu << " of 3\n";
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

TEST(CpuPlacement, AHostHelpingWithChunksLeavesEveryIndexVisitedOncePerLoop) {
  const int helper_cpu = cpu_for_pool_thread(1);
  if (helper_cpu < 0) GTEST_SKIP() << "this process may run on one cpu only: no helper to help";
  thread_pool pool(2);
  EXPECT_EQ(pool.help(-1), thread_pool::help_result::nothing_to_do);
  EXPECT_EQ(pool.help(helper_cpu), thread_pool::help_result::nothing_to_do) << "no loop runs yet";
  std::atomic<bool> stop{false};
  std::atomic<int> chunks_by_host{0};
  // A host that helps as hard as it can, racing the helper and the caller for chunk 1 of every loop.
  std::thread host([&] {
    while (!stop.load()) {
      if (pool.help(helper_cpu) == thread_pool::help_result::ran_a_chunk) chunks_by_host.fetch_add(1);
    }
  });
  for (int loop = 0; loop < 2000; ++loop) {
    // Sizes that split unevenly (the last chunk is shorter) and, every third loop, a single item (one
    // chunk, run by the caller alone, which leaves the claim words as the last loop left them).
    const std::size_t n = loop % 3 == 0 ? 1 : 64 + static_cast<std::size_t>(loop % 7);
    std::vector<std::atomic<int>> visits(n);
    pool.parallel_for(n, 1, [&](std::size_t begin, std::size_t end) {
      for (std::size_t i = begin; i < end; ++i) visits[i].fetch_add(1);
    });
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(visits[i].load(), 1) << "loop " << loop << " index " << i;
  }
  stop = true;
  host.join();
  // How the chunks 1 were shared out is the scheduler's business; it is printed, not asserted.
  std::cout << "chunks run by the helping host: " << chunks_by_host.load() << " of 1333\n";
}

TEST(CpuPlacement, BindingIsOffWithKbenchCpuBindZero) {
  ASSERT_EQ(setenv("KBENCH_CPU_BIND", "0", 1), 0);
  EXPECT_EQ(cpu_for_pool_thread(0), -1);
  EXPECT_EQ(cpu_for_pool_thread(1), -1);
  ASSERT_EQ(unsetenv("KBENCH_CPU_BIND"), 0);
}

}  // namespace
}  // namespace kbench::cpu
