// NVML at run time (see nvml.hpp). The few declarations kbench needs are written out here, as nvml.h gives
// them, so that the build needs no NVML headers.

#include "backends/cuda/nvml.hpp"

#include <fmt/format.h>

#include <dlfcn.h>

#include <cstring>
#include <mutex>

namespace kbench::cuda::detail {

namespace {

using nvml_return = int;                 // nvmlReturn_t; 0 = NVML_SUCCESS
using nvml_device = void*;               // nvmlDevice_t
constexpr int nvml_clock_sm = 1;         // NVML_CLOCK_SM
constexpr int nvml_temperature_gpu = 0;  // NVML_TEMPERATURE_GPU

struct nvml_api {
  nvml_return (*init)() = nullptr;  // nvmlInit_v2
  nvml_return (*handle_by_pci_bus_id)(const char*,
                                      nvml_device*) = nullptr;           // nvmlDeviceGetHandleByPciBusId_v2
  nvml_return (*clock_info)(nvml_device, int, unsigned*) = nullptr;      // nvmlDeviceGetClockInfo
  nvml_return (*max_clock_info)(nvml_device, int, unsigned*) = nullptr;  // nvmlDeviceGetMaxClockInfo
  nvml_return (*temperature)(nvml_device, int, unsigned*) = nullptr;     // nvmlDeviceGetTemperature
  nvml_return (*throttle_reasons)(nvml_device,
                                  unsigned long long*) = nullptr;  // ...CurrentClocksEventReasons
  std::string reason;                                              // why NVML is not usable; empty when it is
};

template <typename Fn>
void assign_symbol(Fn& target, void* symbol) {
  static_assert(sizeof(Fn) == sizeof(void*));
  std::memcpy(&target, &symbol, sizeof(void*));
}

const nvml_api& api() {
  static const nvml_api loaded = [] {
    nvml_api a;
    // Never dlclosed, as the driver: NVML keeps process-wide state.
    void* handle = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      a.reason = "libnvidia-ml.so.1 not found";
      return a;
    }
    assign_symbol(a.init, dlsym(handle, "nvmlInit_v2"));
    assign_symbol(a.handle_by_pci_bus_id, dlsym(handle, "nvmlDeviceGetHandleByPciBusId_v2"));
    assign_symbol(a.clock_info, dlsym(handle, "nvmlDeviceGetClockInfo"));
    assign_symbol(a.max_clock_info, dlsym(handle, "nvmlDeviceGetMaxClockInfo"));
    assign_symbol(a.temperature, dlsym(handle, "nvmlDeviceGetTemperature"));
    // Renamed in NVML 12.2 (clocks "events"); the old name stays exported by older drivers.
    assign_symbol(a.throttle_reasons, dlsym(handle, "nvmlDeviceGetCurrentClocksEventReasons"));
    if (a.throttle_reasons == nullptr)
      assign_symbol(a.throttle_reasons, dlsym(handle, "nvmlDeviceGetCurrentClocksThrottleReasons"));
    if (a.init == nullptr || a.handle_by_pci_bus_id == nullptr || a.clock_info == nullptr ||
        a.max_clock_info == nullptr || a.temperature == nullptr || a.throttle_reasons == nullptr) {
      a.reason = "libnvidia-ml.so.1 lacks a function kbench reads";
      return a;
    }
    if (const nvml_return r = a.init(); r != 0) a.reason = fmt::format("nvmlInit failed ({})", r);
    return a;
  }();
  return loaded;
}

}  // namespace

device_clocks read_clocks(const std::string& pci_bus_id) {
  device_clocks clocks;
  const nvml_api& nvml = api();
  if (!nvml.reason.empty()) {
    clocks.detail = "not measured: " + nvml.reason;
    return clocks;
  }
  nvml_device device = nullptr;
  unsigned long long reasons = 0;
  if (nvml.handle_by_pci_bus_id(pci_bus_id.c_str(), &device) != 0 ||
      nvml.clock_info(device, nvml_clock_sm, &clocks.sm_mhz) != 0 ||
      nvml.max_clock_info(device, nvml_clock_sm, &clocks.max_sm_mhz) != 0 ||
      nvml.temperature(device, nvml_temperature_gpu, &clocks.temperature_c) != 0 ||
      nvml.throttle_reasons(device, &reasons) != 0) {
    clocks.detail = fmt::format("not measured: NVML could not read the GPU at {}", pci_bus_id);
    return clocks;
  }
  clocks.measured = true;
  clocks.throttle_reasons = reasons;
  classify_throttle(clocks);
  return clocks;
}

}  // namespace kbench::cuda::detail
