#pragma once
// The opencl backend: any OpenCL 1.2+ platform through the ICD loader (PoCL on CPUs, vendor drivers on GPUs).
// One in-order command queue with profiling per device; programs are built from source with -D defines;
// device time comes from CL_PROFILING_COMMAND_START/END. OpenCL types stay out of this header.

#include <kbench/config.hpp>
#include <kbench/device.hpp>
#include <kbench/event.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kbench::opencl {

class opencl_device;

/// A kernel object of a built program, with arguments set by index.
class opencl_kernel {
 public:
  struct impl;
  explicit opencl_kernel(std::shared_ptr<impl> state);
  /// Binds an opencl buffer of the same device; throws kbench::error otherwise.
  void set_arg(unsigned index, const buffer_ptr& b);
  void set_arg_i32(unsigned index, std::int32_t value);
  void set_arg_i64(unsigned index, std::int64_t value);
  void set_arg_f32(unsigned index, float value);
  /// Local memory of `bytes` bytes for a __local argument.
  void set_arg_local(unsigned index, std::size_t bytes);
  /// Enqueues the kernel (1 to 3 dimensions) and flushes the queue so the device starts; returns at once.
  /// `local` empty lets the runtime choose the work-group size. Throws kbench::error naming the call on
  /// failure.
  [[nodiscard]] event_ptr launch(std::span<const std::size_t> global,
                                 std::span<const std::size_t> local = {});

 private:
  std::shared_ptr<impl> m_impl;
};

/// A program built from OpenCL C source.
class opencl_program {
 public:
  struct impl;
  explicit opencl_program(std::shared_ptr<impl> state);
  [[nodiscard]] opencl_kernel kernel(const std::string& name) const;

 private:
  std::shared_ptr<impl> m_impl;
};

class opencl_device : public device {
 public:
  struct impl;
  explicit opencl_device(std::unique_ptr<impl> state);
  ~opencl_device() override;
  [[nodiscard]] const device_info& info() const override;
  [[nodiscard]] buffer_ptr allocate(std::size_t bytes) override;
  void barrier() override;  // clFinish
  /// Waits for the queued kernels, then evicts the device's caches: fills a scratch buffer of twice the
  /// device's global-memory cache on the device (a GPU's L2), and on a cpu device (PoCL) also flushes every
  /// core's caches from the host (device::flush_caches).
  void flush_caches() override;

  /// Builds `source` with `defines` as -DNAME=VALUE plus `extra_options`. On failure throws kbench::error
  /// whose message holds the build log.
  [[nodiscard]] opencl_program build_program(std::string_view source, const config& defines = {},
                                             std::string_view extra_options = {});

  [[nodiscard]] impl& state() { return *m_impl; }

 private:
  std::unique_ptr<impl> m_impl;
};

/// Every device of every platform, in platform order. Never throws: when no platform is found, returns an
/// empty list and sets `reason` ("no OpenCL platform found (clGetPlatformIDs returned -1001)").
[[nodiscard]] std::vector<device_info> list_devices(std::string* reason = nullptr);
/// Opens device `index` of list_devices(); throws kbench::error when there is none.
[[nodiscard]] std::shared_ptr<opencl_device> open_device(std::size_t index = 0);

}  // namespace kbench::opencl
