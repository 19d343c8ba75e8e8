// A GPU's clocks in the contention marks (device_clocks.hpp, contention.hpp): which throttle reasons are a
// disturbance, and how a window's mark takes them. The reading itself needs a GPU (tests/gpu).

#include <kbench/contention.hpp>
#include <kbench/device_clocks.hpp>

#include <gtest/gtest.h>

namespace kbench {
namespace {

device_clocks gpu(std::uint64_t reasons) {
  device_clocks c;
  c.measured = true;
  c.sm_mhz = 1410;
  c.max_sm_mhz = 1980;
  c.temperature_c = 71;
  c.throttle_reasons = reasons;
  classify_throttle(c);
  return c;
}

TEST(DeviceClocks, HeatAndHardwareSlowdownAreDisturbancesThePowerCapIsNot) {
  EXPECT_FALSE(gpu(0).throttled);
  EXPECT_EQ(gpu(0).detail, "SM 1410 of 1980 MHz, 71 C");
  const auto capped = gpu(nvml_reason::sw_power_cap | nvml_reason::gpu_idle);
  EXPECT_FALSE(capped.throttled);  // a kernel at the board's power limit is capped by its own work
  EXPECT_EQ(capped.detail, "SM 1410 of 1980 MHz, 71 C; at its power cap");
  const auto hot = gpu(nvml_reason::sw_thermal | nvml_reason::hw_slowdown | nvml_reason::sw_power_cap);
  EXPECT_TRUE(hot.throttled);
  EXPECT_EQ(hot.detail,
            "SM 1410 of 1980 MHz, 71 C; thermal slowdown (software), hardware slowdown, at its power cap");
  EXPECT_TRUE(gpu(nvml_reason::hw_thermal).throttled);
  EXPECT_TRUE(gpu(nvml_reason::hw_power_brake).throttled);
}

TEST(DeviceClocks, AThrottledGpuMakesTheWindowDisturbed) {
  contention quiet_cpu;
  quiet_cpu.measured = true;
  quiet_cpu.wall_s = 1;
  quiet_cpu.cpus = 2;
  classify(quiet_cpu);
  ASSERT_TRUE(quiet_cpu.quiet);

  contention unread = quiet_cpu;
  add_device_clocks(unread, device_clocks{}, device_clocks{});  // no NVML: nothing changes
  EXPECT_TRUE(unread.quiet);
  EXPECT_TRUE(unread.device_detail.empty());

  contention cool = quiet_cpu;
  add_device_clocks(cool, gpu(0), gpu(nvml_reason::sw_power_cap));
  EXPECT_TRUE(cool.quiet);
  EXPECT_NE(
      cool.describe().find("GPU SM 1410 of 1980 MHz, 71 C at the start, SM 1410 of 1980 MHz, 71 C; at its "
                           "power cap at the end"),
      std::string::npos)
      << cool.describe();

  contention hot = quiet_cpu;
  add_device_clocks(hot, gpu(0), gpu(nvml_reason::hw_thermal));
  EXPECT_FALSE(hot.quiet);
  EXPECT_NE(hot.reason.find("the driver slowed the GPU down (GPU SM 1410 of 1980 MHz"), std::string::npos)
      << hot.reason;
  EXPECT_EQ(hot.describe().rfind("disturbed: ", 0), 0u) << hot.describe();
}

}  // namespace
}  // namespace kbench
