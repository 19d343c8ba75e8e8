#pragma once
// Finds the backends compiled into this build and the devices they can reach, and opens one.

#include <kbench/device.hpp>

#include <functional>
#include <string>
#include <vector>

namespace kbench {

struct backend_status {
  backend_kind kind = backend_kind::cpu;
  bool compiled = false;   // built into this binary (cuda needs the toolkit at build time)
  bool available = false;  // at least one device found at run time
  std::string reason;  // why not available: "not built with CUDA support", "no OpenCL platform found", ...
  std::vector<device_info> devices;
};

/// Probes every backend (cpu, opencl, cuda, torch). Never throws: a backend that fails to probe is reported
/// unavailable with the reason.
[[nodiscard]] std::vector<backend_status> probe_backends();

/// The first available of cuda, opencl, cpu (torch is the baseline, never picked by auto).
[[nodiscard]] backend_kind pick_auto_backend();

/// A backend that a program links in beside the library and that registers itself (the torch baseline: only
/// the programs built with libtorch have it). `list` may throw; its message becomes the backend's reason.
struct backend_provider {
  std::function<std::vector<device_info>()> list;
  std::function<device_ptr(std::size_t index)> open;
};

/// Makes `kind` available through probe_backends and open_device; returns true (for a static initializer).
bool register_backend_provider(backend_kind kind, backend_provider provider);

/// Opens device `index` of `kind`. Throws kbench::error with the reason when the backend is not compiled in
/// or has no such device.
[[nodiscard]] device_ptr open_device(backend_kind kind, std::size_t index = 0);

}  // namespace kbench
