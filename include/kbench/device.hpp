#pragma once
// The device interface every backend implements: identity, memory, and a device-wide barrier.
// Launching is backend-specific (an OpenCL kernel, a CUDA function, a C++ callable) and lives with the
// backend's own classes; what a launch returns is generic: events and output buffers (call_result.hpp).

#include <kbench/buffer.hpp>
#include <kbench/device_clocks.hpp>

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace kbench {

enum class backend_kind { cpu, opencl, cuda, torch };

[[nodiscard]] std::string_view to_string(backend_kind kind);
/// Parses "cpu", "opencl", "cuda" or "torch"; throws usage_error listing the valid names otherwise.
[[nodiscard]] backend_kind parse_backend_kind(std::string_view name);
[[nodiscard]] const std::vector<backend_kind>& all_backend_kinds();

/// What a device says about itself; the fields feed reports, cache keys and launch limits.
struct device_info {
  backend_kind backend = backend_kind::cpu;
  std::string name;                     // e.g. "pthread-skylake-avx512-Intel(R) Xeon(R) Processor"
  std::string vendor;                   // e.g. "GenuineIntel", "NVIDIA Corporation"
  std::string platform;                 // OpenCL platform name, "CUDA", "kbench thread pool", "libtorch"
  std::string driver_version;           // driver / runtime version string
  std::size_t max_work_group_size = 0;  // [work-items]; 0 where the notion does not apply
  std::size_t global_memory_bytes = 0;  // [bytes]
  unsigned compute_units = 0;           // cores, SMs or OpenCL compute units
};

class device {
 public:
  virtual ~device() = default;
  [[nodiscard]] virtual const device_info& info() const = 0;
  /// Allocates `bytes` bytes of device memory (contents undefined).
  [[nodiscard]] virtual buffer_ptr allocate(std::size_t bytes) = 0;
  /// Blocks until all work enqueued on this device so far has finished: a device-wide barrier, unlike a wait
  /// on one result (clFinish, cuCtxSynchronize, draining the worker queue).
  virtual void barrier() = 0;
  /// Evicts from the caches the kernels use whatever earlier calls left there, and returns when done:
  /// untimed, before a sample of `kbench measure --flush-cache`. The default flushes the host's caches, every
  /// core's and the last level (flush_host_cache), which is what a kernel on the host's cpus sees.
  virtual void flush_caches();
  /// The device's clocks now and whether its driver is slowing it down (device_clocks.hpp), where the driver
  /// says (the cuda backend, through NVML); the default: not measured.
  [[nodiscard]] virtual device_clocks clocks() const { return {}; }
};

using device_ptr = std::shared_ptr<device>;

}  // namespace kbench
