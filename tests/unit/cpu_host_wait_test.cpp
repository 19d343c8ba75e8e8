// How a host thread waits for the cpu backend's kernels (cpu_stream.cpp, host_poll): it spins, without
// sleeping, through a kernel shorter than host_spin_limit while no pool thread needs its cpu, so that no
// wake-up lands in the timed window; and it gives its core back (sleeps) when a kernel runs for longer.
// What the spinning buys is timing, shown by build/release/harness_accuracy, not asserted here; these tests
// count the waiting thread's voluntary context switches (a sleep is one) and its cpu time.

#include <kbench/backends/cpu.hpp>

#include "backends/cpu/placement.hpp"
#include "backends/cpu/poll.hpp"

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <chrono>
#include <thread>

namespace kbench::cpu {
namespace {

using namespace std::chrono_literals;

struct thread_usage {
  long voluntary_switches = 0;
  double cpu_ms = 0;  // user + system time of the calling thread
};

thread_usage usage_of_this_thread() {
  rusage usage{};
  EXPECT_EQ(getrusage(RUSAGE_THREAD, &usage), 0);
  const auto ms = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_usec) / 1e3;
  };
  return {usage.ru_nvcsw, ms(usage.ru_utime) + ms(usage.ru_stime)};
}

/// Runs `body(device)` on a thread bound to the cpu of pool thread 1, off the dispatcher's cpu: a host placed
/// there does not step off it (a migration, which may count as a context switch) before it polls. The device
/// is made first: its threads are placed by the mask of the thread that makes it.
template <class Body>
void on_a_host_off_the_dispatchers_cpu(const Body& body) {
  const int host_cpu = cpu_for_pool_thread(1);
  if (host_cpu < 0) GTEST_SKIP() << "this process may run on one cpu only: the host shares the dispatcher's";
  std::thread host([&] {
    cpu_device device(2);
    bind_current_thread(host_cpu);
    device.launch([](const parallel_context&) {})->wait();  // the dispatcher runs
    body(device);
  });
  host.join();
}

/// Launches a kernel that sleeps for `kernel_time` and waits for it, on its event or with a barrier; returns
/// what the wait cost the calling thread: voluntary switches and cpu time.
thread_usage usage_of_a_wait(cpu_device& device, std::chrono::milliseconds kernel_time, bool with_barrier) {
  event_ptr done = device.launch([&](const parallel_context&) { std::this_thread::sleep_for(kernel_time); });
  const thread_usage before = usage_of_this_thread();
  if (with_barrier) {
    device.barrier();
  } else {
    done->wait();
  }
  const thread_usage after = usage_of_this_thread();
  EXPECT_TRUE(done->is_complete());
  return {after.voluntary_switches - before.voluntary_switches, after.cpu_ms - before.cpu_ms};
}

TEST(CpuHostWait, AHostSpinsThroughAKernelShorterThanTheSpinLimit) {
  constexpr auto kernel_time = 5ms;
  static_assert(kernel_time * 2 < host_spin_limit && kernel_time > 10 * poll_budget);
  on_a_host_off_the_dispatchers_cpu([&](cpu_device& device) {
    for (int round = 0; round < 3; ++round) {  // the event's wait, the barrier's, the event's
      const thread_usage wait = usage_of_a_wait(device, kernel_time, round == 1);
      EXPECT_EQ(wait.voluntary_switches, 0)
          << "round " << round << ": the host slept while it waited for a kernel of 5 ms";
    }
  });
}

TEST(CpuHostWait, AHostGivesItsCoreBackWhenAKernelOutlastsTheSpinLimit) {
  constexpr auto kernel_time = 10 * host_spin_limit;
  on_a_host_off_the_dispatchers_cpu([&](cpu_device& device) {
    for (int round = 0; round < 2; ++round) {  // the event's wait, then the barrier's
      const thread_usage wait = usage_of_a_wait(device, kernel_time, round == 1);
      EXPECT_GE(wait.voluntary_switches, 1) << "round " << round << ": never slept";
      // Spinning through the whole kernel would take about its 200 ms of cpu time; the limit, about 20 ms.
      const double kernel_ms = std::chrono::duration<double, std::milli>(kernel_time).count();
      EXPECT_LT(wait.cpu_ms, kernel_ms / 2) << "round " << round;
    }
  });
}

}  // namespace
}  // namespace kbench::cpu
