#pragma once
// The torch baseline seen as a device, without libtorch headers: what the backend registry needs.

#include <kbench/device.hpp>

namespace kbench {

/// "libtorch 1.13.1 (ATen CPU, 2 threads)" and the host's identity.
[[nodiscard]] device_info torch_device_info();
/// Host memory (torch reads and writes it in place through from_blob); barrier is a no-op because every torch
/// call here is synchronous: it has finished when it returns.
[[nodiscard]] device_ptr open_torch_device();

}  // namespace kbench
