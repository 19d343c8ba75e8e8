#pragma once
// NVML, loaded at run time like the driver (driver_api.hpp): a GPU's clocks, temperature and the reasons
// its driver slowed it down, for the contention marks of a timed window (device_clocks.hpp). Optional: where
// libnvidia-ml.so.1 or a function is missing, every read says "not measured".

#include <kbench/device_clocks.hpp>

#include <string>

namespace kbench::cuda::detail {

/// The clocks of the GPU at PCI bus id `pci_bus_id` ("0000:3B:00.0", as cuDeviceGetPCIBusId gives it; the
/// bus id, not the index, since CUDA_VISIBLE_DEVICES renumbers devices and NVML does not). Never throws:
/// measured = false, with the reason in `detail`, where NVML cannot tell.
[[nodiscard]] device_clocks read_clocks(const std::string& pci_bus_id);

}  // namespace kbench::cuda::detail
