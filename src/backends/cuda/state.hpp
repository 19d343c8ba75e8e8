#pragma once
// The state behind the cuda backend's public classes (include/kbench/backends/cuda.hpp). Private to
// src/backends/cuda. Ownership: everything that holds a driver handle (buffers, modules, functions, events)
// holds a shared_ptr to the context_state it belongs to, so the context outlives every handle made in it.

#include "backends/cuda/driver_api.hpp"

#include <kbench/backends/cuda.hpp>

#include <cuda.h>

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kbench::cuda::detail {

/// One opened device: its primary context, the stream every launch goes to, and the reference event that
/// device timestamps are measured from.
struct context_state {
  const driver_api* api = nullptr;
  CUdevice device = 0;
  int ordinal = 0;
  int cc_major = 0;  // compute capability, e.g. 9.0 for H100/H200
  int cc_minor = 0;
  CUcontext context = nullptr;  // the device's primary context (retained), shared with any CUDA runtime user
  CUstream stream = nullptr;    // blocking w.r.t. the legacy stream: synchronous copies order after launches
  CUevent reference = nullptr;  // recorded once at open: the origin of device_interval timestamps

  context_state() = default;
  context_state(const context_state&) = delete;
  context_state& operator=(const context_state&) = delete;
  ~context_state();

  /// Makes the context current on the calling thread (a thread-local read when it already is), since every
  /// driver call acts on the calling thread's current context.
  void make_current() const;

  /// A timing event from the pool (created when the pool is empty). Events are reused because creating two
  /// per launch would add driver work to every timed call.
  [[nodiscard]] CUevent acquire_event();
  void release_event(CUevent e) noexcept;

 private:
  std::mutex m_pool_mutex;
  std::vector<CUevent> m_event_pool;
};

using context_ptr = std::shared_ptr<context_state>;

/// Device memory of one context.
class cuda_buffer final : public buffer {
 public:
  cuda_buffer(context_ptr ctx, std::size_t bytes);
  ~cuda_buffer() override;
  cuda_buffer(const cuda_buffer&) = delete;
  cuda_buffer& operator=(const cuda_buffer&) = delete;

  [[nodiscard]] std::size_t size_bytes() const override { return m_bytes; }
  void write(const void* src, std::size_t bytes) override;
  void read(void* dst, std::size_t bytes) const override;

  [[nodiscard]] CUdeviceptr device_pointer() const { return m_ptr; }
  [[nodiscard]] const context_state* context() const { return m_ctx.get(); }

 private:
  context_ptr m_ctx;
  std::size_t m_bytes = 0;  // [bytes] as requested (the allocation is at least 1 byte)
  CUdeviceptr m_ptr = 0;
};

/// A launch bracketed by two events on the device's stream.
class cuda_event final : public event {
 public:
  cuda_event(context_ptr ctx, CUevent start, CUevent end)
      : m_ctx(std::move(ctx)), m_start(start), m_end(end) {}
  ~cuda_event() override;
  cuda_event(const cuda_event&) = delete;
  cuda_event& operator=(const cuda_event&) = delete;

  [[nodiscard]] bool is_complete() const override;  // cuEventQuery(end) == CUDA_SUCCESS
  void wait() override;                             // cuEventSynchronize(end)
  /// start = elapsed(reference, start); end = start + elapsed(start, end) [ns]. The duration is taken
  /// directly between the two events: a float of milliseconds since the reference loses precision as the
  /// process runs (about 60 us after 1000 s), the difference of two nearby events does not.
  [[nodiscard]] std::optional<device_interval> interval() const override;

 private:
  context_ptr m_ctx;
  CUevent m_start = nullptr;
  CUevent m_end = nullptr;
};

/// Code NVRTC produced for one device.
struct compiled_program {
  std::vector<char> image;  // CUBIN, or NUL-terminated PTX
  bool is_cubin = false;
  std::string target;         // "sm_90" or "compute_90"
  std::string nvrtc_version;  // "13.0"
};

/// Compiles CUDA C++ `source` with NVRTC for compute capability cc_major.cc_minor, one -DNAME=VALUE per entry
/// of `defines`. Real architecture (CUBIN) when NVRTC supports it, else PTX for the newest virtual
/// architecture not above the device's. Throws kbench::error with the NVRTC log on failure.
[[nodiscard]] compiled_program nvrtc_compile(std::string_view source, const config& defines, int cc_major,
                                             int cc_minor);

}  // namespace kbench::cuda::detail

namespace kbench::cuda {

struct cuda_device::impl {
  detail::context_ptr ctx;
  device_info info;
  std::mutex flush_mutex;
  std::shared_ptr<detail::cuda_buffer> flush_scratch;  // flush_caches' buffer, made at the first flush
};

struct cuda_module::impl {
  detail::context_ptr ctx;
  CUmodule module = nullptr;
  std::string target;  // what NVRTC compiled for, for error messages

  impl() = default;
  impl(const impl&) = delete;
  impl& operator=(const impl&) = delete;
  ~impl();
};

// Arguments are set and read without a lock: one cuda_function (and its copies) is launched from one thread
// at a time; different functions may be launched from different threads.
struct cuda_function::impl {
  /// One kernel parameter, stored where cuLaunchKernel's kernelParams can point at it.
  struct argument {
    alignas(8) unsigned char bytes[8] = {};
    bool set = false;
    buffer_ptr keep_alive;  // a bound buffer lives as long as the binding
  };

  std::shared_ptr<cuda_module::impl> module;
  CUfunction function = nullptr;
  std::string name;
  std::vector<argument> arguments;  // by parameter index
  std::vector<void*> params;        // pointers into `arguments`, rebuilt when an argument is added

  argument& slot(unsigned index);
};

}  // namespace kbench::cuda
