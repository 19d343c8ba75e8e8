// Whether a timed window was quiet: the classification from the machine's numbers, and the probe's reading
// of this process's own CPU time.

#include <kbench/contention.hpp>

#include <gtest/gtest.h>

#include <chrono>

namespace kbench {
namespace {

contention window(double others_cpu_s, double steal_s) {
  contention c;
  c.measured = true;
  c.wall_s = 1.0;
  c.cpus = 2;
  c.others_cpu_s = others_cpu_s;
  c.steal_s = steal_s;
  c.resolution_s = 0.04;
  c.load_average = 1.5;
  classify(c);
  return c;
}

TEST(Contention, HousekeepingIsQuietAndAHogIsNot) {
  // 2 CPUs for 1 s: 0.2 CPU-seconds of others is 10% less the accounting's resolution (0.04 s).
  EXPECT_TRUE(window(0.05, 0).quiet);
  EXPECT_TRUE(window(0.23, 0).quiet);
  const contention hog = window(1.0, 0);
  EXPECT_FALSE(hog.quiet);
  EXPECT_EQ(hog.reason, "other processes used 48% of the 2 CPUs (load average 1.50)");
  EXPECT_EQ(hog.describe(), "disturbed: other processes used 48% of the 2 CPUs (load average 1.50)");
}

TEST(Contention, StealByTheHypervisorDisturbsAWindow) {
  const contention stolen = window(0, 0.3);
  EXPECT_FALSE(stolen.quiet);
  EXPECT_EQ(stolen.reason, "the hypervisor stole 15% of the CPU time");
  EXPECT_EQ(
      window(1.0, 0.3).reason,
      "other processes used 48% of the 2 CPUs (load average 1.50); the hypervisor stole 15% of the CPU time");
}

TEST(Contention, AWindowWithoutProcIsQuietButSaysSo) {
  contention c;
  c.others_cpu_s = 100;
  classify(c);
  EXPECT_TRUE(c.quiet);
  EXPECT_EQ(c.describe(), "quiet (not measured: no /proc here)");
}

TEST(Contention, TheProbeCountsThisProcesssOwnCpuTime) {
  const contention_probe probe;
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(300);
  volatile double sink = 0;
  while (std::chrono::steady_clock::now() < until) sink = sink + 1.0;
  const contention c = probe.finish();
  ASSERT_TRUE(c.measured) << "Linux has /proc/stat";
  EXPECT_GE(c.wall_s, 0.3);
  EXPECT_GE(c.cpus, 1u);
  EXPECT_GT(c.own_cpu_s, 0.03) << "300 ms of spinning, even on a machine shared tenfold";
  EXPECT_LE(c.own_cpu_s, c.wall_s * 1.05 + 0.02) << "one thread spun";
  EXPECT_GE(c.others_cpu_s, 0.0);
}

}  // namespace
}  // namespace kbench
