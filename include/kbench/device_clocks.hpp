#pragma once
// A device's clocks while it was timed, and whether its driver slowed it down: what the CPU accounting of
// contention.hpp cannot see on a GPU. Read where the driver gives them (NVML on NVIDIA GPUs:
// device::clocks()); a backend without them says "not measured".

#include <cstdint>
#include <string>

namespace kbench {

struct device_clocks {
  bool measured = false;
  unsigned sm_mhz = 0;      // [MHz] the SM (graphics) clock now
  unsigned max_sm_mhz = 0;  // [MHz] its maximum
  unsigned temperature_c = 0;
  std::uint64_t throttle_reasons = 0;  // NVML's clocks-event reason bits
  bool throttled = false;              // a reason that is a disturbance (below) was set
  std::string detail;                  // "SM 1410 of 1980 MHz, 71 C; thermal slowdown (software)"
};

/// NVML's clocks-event (throttle) reason bits, as nvml.h numbers them.
namespace nvml_reason {
inline constexpr std::uint64_t gpu_idle = 0x1;
inline constexpr std::uint64_t applications_clocks = 0x2;
inline constexpr std::uint64_t sw_power_cap = 0x4;
inline constexpr std::uint64_t hw_slowdown = 0x8;
inline constexpr std::uint64_t sync_boost = 0x10;
inline constexpr std::uint64_t sw_thermal = 0x20;
inline constexpr std::uint64_t hw_thermal = 0x40;
inline constexpr std::uint64_t hw_power_brake = 0x80;
inline constexpr std::uint64_t display_clocks = 0x100;
}  // namespace nvml_reason

/// Fills `throttled` and `detail` from the clocks, the temperature and the reason bits. Thermal slowdown
/// (software or hardware), hardware slowdown and the power brake are disturbances: the device ran slower
/// than it can for a reason outside the kernel (heat, an external power signal). The software power cap is
/// named but is not one: a kernel that draws the board's power limit is capped by its own work, every run.
void classify_throttle(device_clocks& clocks);

}  // namespace kbench
