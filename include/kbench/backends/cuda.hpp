#pragma once
// The cuda backend: the CUDA driver API loaded at run time (libcuda.so.1, so the binary runs where no driver
// is installed) and NVRTC for programs built from source with -D defines; one stream per device; device time
// from CUDA events recorded around each launch. CUDA types stay out of this header.

#include <kbench/config.hpp>
#include <kbench/device.hpp>
#include <kbench/event.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace kbench::cuda {

/// A __global__ function of a built module, with arguments set by index.
class cuda_function {
 public:
  struct impl;
  explicit cuda_function(std::shared_ptr<impl> state);
  void set_arg(unsigned index, const buffer_ptr& b);  // a cuda buffer of the same device
  void set_arg_i32(unsigned index, std::int32_t value);
  void set_arg_i64(unsigned index, std::int64_t value);
  void set_arg_f32(unsigned index, float value);
  /// Launches on the device's stream with events recorded before and after; returns at once.
  [[nodiscard]] event_ptr launch(std::array<unsigned, 3> grid, std::array<unsigned, 3> block,
                                 unsigned shared_bytes = 0);

 private:
  std::shared_ptr<impl> m_impl;
};

/// A module compiled by NVRTC for the device's architecture.
class cuda_module {
 public:
  struct impl;
  explicit cuda_module(std::shared_ptr<impl> state);
  [[nodiscard]] cuda_function function(const std::string& name) const;

 private:
  std::shared_ptr<impl> m_impl;
};

class cuda_device : public device {
 public:
  struct impl;
  explicit cuda_device(std::unique_ptr<impl> state);
  ~cuda_device() override;
  [[nodiscard]] const device_info& info() const override;
  [[nodiscard]] buffer_ptr allocate(std::size_t bytes) override;
  void barrier() override;  // cuCtxSynchronize
  /// Evicts the GPU's L2: a memset of a scratch buffer of twice its size on the stream, then a barrier (as
  /// nvbench flushes it; the host's caches are not the kernel's).
  void flush_caches() override;
  /// The SM clock, temperature and throttle reasons, from NVML (libnvidia-ml.so.1) where it is present.
  [[nodiscard]] device_clocks clocks() const override;

  /// Compiles `source` with NVRTC (-DNAME=VALUE per define, --gpu-architecture for this device). On failure
  /// throws kbench::error whose message holds the NVRTC log.
  [[nodiscard]] cuda_module build_module(std::string_view source, const config& defines = {});

  [[nodiscard]] impl& state() { return *m_impl; }

 private:
  std::unique_ptr<impl> m_impl;
};

/// Devices found through the driver. Never throws: without a driver or GPU, returns empty and sets `reason`
/// ("libcuda.so.1 not found: no NVIDIA driver on this machine").
[[nodiscard]] std::vector<device_info> list_devices(std::string* reason = nullptr);
/// Opens device `index`; throws kbench::error when there is none.
[[nodiscard]] std::shared_ptr<cuda_device> open_device(std::size_t index = 0);

}  // namespace kbench::cuda
