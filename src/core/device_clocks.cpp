#include <kbench/device_clocks.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <utility>
#include <vector>

namespace kbench {

void classify_throttle(device_clocks& clocks) {
  static const std::vector<std::pair<std::uint64_t, const char*>> disturbances{
      {nvml_reason::sw_thermal, "thermal slowdown (software)"},
      {nvml_reason::hw_thermal, "thermal slowdown (hardware)"},
      {nvml_reason::hw_slowdown, "hardware slowdown"},
      {nvml_reason::hw_power_brake, "power brake"}};
  static const std::vector<std::pair<std::uint64_t, const char*>> named{
      {nvml_reason::sw_power_cap, "at its power cap"},
      {nvml_reason::applications_clocks, "application clocks set"},
      {nvml_reason::sync_boost, "sync boost"},
      {nvml_reason::display_clocks, "display clocks"}};
  std::vector<std::string> reasons;
  clocks.throttled = false;
  for (const auto& [bit, text] : disturbances) {
    if ((clocks.throttle_reasons & bit) != 0) {
      clocks.throttled = true;
      reasons.emplace_back(text);
    }
  }
  for (const auto& [bit, text] : named) {
    if ((clocks.throttle_reasons & bit) != 0) reasons.emplace_back(text);
  }
  clocks.detail = fmt::format("SM {} of {} MHz, {} C{}{}", clocks.sm_mhz, clocks.max_sm_mhz,
                              clocks.temperature_c, reasons.empty() ? "" : "; ", fmt::join(reasons, ", "));
}

}  // namespace kbench
