// The opencl backend against the OpenCL 1.2 C API: devices, buffers, programs, kernels and profiled events.
//
// Lifetime: the context and the command queue live in one shared `queue_state`. Buffers, programs, kernels
// and events each hold a reference to it, so that no OpenCL object outlives the context it belongs to,
// whatever order the caller drops them in.

#include <kbench/backends/opencl.hpp>
#include <kbench/error.hpp>
#include <kbench/host_cache.hpp>

#include "cl_check.hpp"

#include <CL/cl.h>
#include <CL/cl_ext.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstddef>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace kbench::opencl {

namespace {

using detail::check;
using detail::error_name;

// --- RAII handles: release in the destructor, never throw --------------------------------------------------
struct release_context {
  void operator()(cl_context c) const noexcept { clReleaseContext(c); }
};
struct release_queue {
  void operator()(cl_command_queue q) const noexcept { clReleaseCommandQueue(q); }
};
struct release_mem {
  void operator()(cl_mem m) const noexcept { clReleaseMemObject(m); }
};
struct release_program {
  void operator()(cl_program p) const noexcept { clReleaseProgram(p); }
};
struct release_kernel {
  void operator()(cl_kernel k) const noexcept { clReleaseKernel(k); }
};
struct release_event {
  void operator()(cl_event e) const noexcept { clReleaseEvent(e); }
};

using context_handle = std::unique_ptr<std::remove_pointer_t<cl_context>, release_context>;
using queue_handle = std::unique_ptr<std::remove_pointer_t<cl_command_queue>, release_queue>;
using mem_handle = std::unique_ptr<std::remove_pointer_t<cl_mem>, release_mem>;
using program_handle = std::unique_ptr<std::remove_pointer_t<cl_program>, release_program>;
using kernel_handle = std::unique_ptr<std::remove_pointer_t<cl_kernel>, release_kernel>;
using event_handle = std::unique_ptr<std::remove_pointer_t<cl_event>, release_event>;

/// The context and in-order profiling queue of one opened device, shared by everything created on it.
struct queue_state {
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  context_handle context;  // declared before the queue: destroyed after it
  queue_handle queue;

  queue_state() = default;
  queue_state(const queue_state&) = delete;
  queue_state& operator=(const queue_state&) = delete;
  ~queue_state() {
    // Let enqueued work finish before its buffers and kernels go away; the status is of no use here.
    if (queue) {
      clFinish(queue.get());
    }
  }
};

// --- info queries ------------------------------------------------------------------------------------------
std::string trimmed(std::string text) {
  // OpenCL strings end in '\0' and some drivers pad them with spaces.
  while (!text.empty() && (text.back() == '\0' || text.back() == ' ' || text.back() == '\n')) {
    text.pop_back();
  }
  return text;
}

std::string platform_string(cl_platform_id platform, cl_platform_info param) {
  std::size_t size = 0;
  check(clGetPlatformInfo(platform, param, 0, nullptr, &size), "clGetPlatformInfo");
  std::string text(size, '\0');
  check(clGetPlatformInfo(platform, param, size, text.data(), nullptr), "clGetPlatformInfo");
  return trimmed(std::move(text));
}

std::string device_string(cl_device_id device, cl_device_info param) {
  std::size_t size = 0;
  check(clGetDeviceInfo(device, param, 0, nullptr, &size), "clGetDeviceInfo");
  std::string text(size, '\0');
  check(clGetDeviceInfo(device, param, size, text.data(), nullptr), "clGetDeviceInfo");
  return trimmed(std::move(text));
}

template <typename T>
T device_value(cl_device_id device, cl_device_info param) {
  T value{};
  check(clGetDeviceInfo(device, param, sizeof(T), &value, nullptr), "clGetDeviceInfo");
  return value;
}

device_info describe(cl_platform_id platform, cl_device_id device) {
  device_info info;
  info.backend = backend_kind::opencl;
  info.name = device_string(device, CL_DEVICE_NAME);
  info.vendor = device_string(device, CL_DEVICE_VENDOR);
  info.platform = platform_string(platform, CL_PLATFORM_NAME);
  info.driver_version = device_string(device, CL_DRIVER_VERSION);
  info.max_work_group_size = device_value<std::size_t>(device, CL_DEVICE_MAX_WORK_GROUP_SIZE);
  info.global_memory_bytes =
      static_cast<std::size_t>(device_value<cl_ulong>(device, CL_DEVICE_GLOBAL_MEM_SIZE));
  info.compute_units = device_value<cl_uint>(device, CL_DEVICE_MAX_COMPUTE_UNITS);
  return info;
}

struct device_entry {
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
};

/// Every device of every platform, in platform order. No platform is not an error: returns an empty list and
/// sets `reason`. Other failures throw.
std::vector<device_entry> enumerate_devices(std::string* reason) {
  cl_uint platform_count = 0;
  const cl_int status = clGetPlatformIDs(0, nullptr, &platform_count);
  if (status == CL_PLATFORM_NOT_FOUND_KHR || (status == CL_SUCCESS && platform_count == 0)) {
    if (reason != nullptr) {
      *reason = status == CL_SUCCESS
                    ? std::string("no OpenCL platform found (clGetPlatformIDs found 0 platforms)")
                    : fmt::format("no OpenCL platform found (clGetPlatformIDs returned {}, {})", status,
                                  error_name(status));
    }
    return {};
  }
  check(status, "clGetPlatformIDs");
  std::vector<cl_platform_id> platforms(platform_count);
  check(clGetPlatformIDs(platform_count, platforms.data(), nullptr), "clGetPlatformIDs");

  std::vector<device_entry> entries;
  for (cl_platform_id platform : platforms) {
    cl_uint device_count = 0;
    const cl_int found = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, nullptr, &device_count);
    if (found == CL_DEVICE_NOT_FOUND || device_count == 0) {
      continue;  // a platform without devices (e.g. an installed ICD whose hardware is absent)
    }
    check(found, "clGetDeviceIDs");
    std::vector<cl_device_id> devices(device_count);
    check(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, device_count, devices.data(), nullptr),
          "clGetDeviceIDs");
    for (cl_device_id device : devices) {
      entries.push_back({platform, device});
    }
  }
  if (entries.empty() && reason != nullptr) {
    *reason = fmt::format("no OpenCL device found on {} platform(s)", platform_count);
  }
  return entries;
}

// --- buffers -----------------------------------------------------------------------------------------------
class cl_buffer final : public buffer {
 public:
  cl_buffer(std::shared_ptr<queue_state> state, std::size_t bytes)
      : m_state(std::move(state)), m_bytes(bytes) {
    cl_int status = CL_SUCCESS;
    m_mem.reset(clCreateBuffer(m_state->context.get(), CL_MEM_READ_WRITE, bytes, nullptr, &status));
    check(status, "clCreateBuffer", fmt::format("({} bytes)", bytes));
  }

  [[nodiscard]] std::size_t size_bytes() const override { return m_bytes; }

  void write(const void* src, std::size_t bytes) override {
    check_size(bytes, "write");
    // Blocking: returns when the data has arrived; in-order queue, so after every kernel enqueued before.
    check(
        clEnqueueWriteBuffer(m_state->queue.get(), m_mem.get(), CL_TRUE, 0, bytes, src, 0, nullptr, nullptr),
        "clEnqueueWriteBuffer");
  }

  void read(void* dst, std::size_t bytes) const override {
    check_size(bytes, "read");
    check(clEnqueueReadBuffer(m_state->queue.get(), m_mem.get(), CL_TRUE, 0, bytes, dst, 0, nullptr, nullptr),
          "clEnqueueReadBuffer");
  }

  void fill(std::byte value) override {
    const auto pattern = std::to_integer<unsigned char>(value);
    check(clEnqueueFillBuffer(m_state->queue.get(), m_mem.get(), &pattern, sizeof(pattern), 0, m_bytes, 0,
                              nullptr, nullptr),
          "clEnqueueFillBuffer");
    check(clFinish(m_state->queue.get()), "clFinish");  // blocking, as write() is
  }

  [[nodiscard]] cl_mem mem() const { return m_mem.get(); }
  [[nodiscard]] const queue_state* owner() const { return m_state.get(); }

 private:
  void check_size(std::size_t bytes, const char* what) const {
    if (bytes > m_bytes) {
      KBENCH_THROW("opencl buffer {} of {} bytes exceeds its size of {} bytes", what, bytes, m_bytes);
    }
  }

  std::shared_ptr<queue_state> m_state;
  std::size_t m_bytes = 0;  // [bytes]
  mem_handle m_mem;
};

// --- events ------------------------------------------------------------------------------------------------
class cl_event_wrapper final : public event {
 public:
  cl_event_wrapper(std::shared_ptr<queue_state> state, event_handle e)
      : m_state(std::move(state)), m_event(std::move(e)) {}

  [[nodiscard]] bool is_complete() const override {
    // A negative status means the command failed: it will never run further, so it counts as complete (with
    // no interval, which the capture count then reports).
    const cl_int status = execution_status();
    return status == CL_COMPLETE || status < 0;
  }

  void wait() override {
    // Blocks, without polling first: on a cpu device (PoCL) the host shares the device's cores, and a wait
    // that polled slowed the kernels it waited for more than it gained on kernels of a few microseconds
    // (docs/code-figures.md).

    cl_event e = m_event.get();
    const cl_int status = clWaitForEvents(1, &e);
    // A failed command completes the wait with this code; it is reported through is_complete()/interval().
    if (status != CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST) {
      check(status, "clWaitForEvents");
    }
  }

  [[nodiscard]] std::optional<device_interval> interval() const override {
    if (execution_status() != CL_COMPLETE) {
      return std::nullopt;
    }
    cl_ulong start = 0;  // [ns, device clock]
    cl_ulong end = 0;    // [ns, device clock]
    if (clGetEventProfilingInfo(m_event.get(), CL_PROFILING_COMMAND_START, sizeof(start), &start, nullptr) !=
            CL_SUCCESS ||
        clGetEventProfilingInfo(m_event.get(), CL_PROFILING_COMMAND_END, sizeof(end), &end, nullptr) !=
            CL_SUCCESS) {
      return std::nullopt;  // no timestamps: counted as a capture miss, not an error
    }
    return device_interval{static_cast<std::int64_t>(start), static_cast<std::int64_t>(end)};
  }

 private:
  [[nodiscard]] cl_int execution_status() const {
    cl_int status = CL_QUEUED;
    check(clGetEventInfo(m_event.get(), CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status), &status, nullptr),
          "clGetEventInfo");
    return status;
  }

  std::shared_ptr<queue_state> m_state;
  event_handle m_event;
};

std::string sizes_text(std::span<const std::size_t> sizes) {
  return fmt::format("[{}]", fmt::join(sizes, ","));
}

}  // namespace

// --- pimpl structs -----------------------------------------------------------------------------------------
struct opencl_device::impl {
  std::shared_ptr<queue_state> state;
  device_info info;
  std::mutex flush_mutex;
  buffer_ptr flush_scratch;        // flush_caches' buffer, made at the first flush
  bool flush_host_caches = false;  // a cpu device: flush_caches also flushes the host's caches
};

struct opencl_program::impl {
  std::shared_ptr<queue_state> state;
  program_handle program;
};

struct opencl_kernel::impl {
  std::shared_ptr<queue_state> state;
  std::shared_ptr<opencl_program::impl> program;
  kernel_handle kernel;
  std::string name;
  // clSetKernelArg does not retain buffers: keep every bound buffer alive while the kernel may use it.
  std::vector<buffer_ptr> bound;

  void set_raw(unsigned index, std::size_t size, const void* value) {
    check(clSetKernelArg(kernel.get(), index, size, value), "clSetKernelArg",
          fmt::format("(kernel '{}', argument {})", name, index));
  }
};

// --- opencl_kernel -----------------------------------------------------------------------------------------
opencl_kernel::opencl_kernel(std::shared_ptr<impl> state) : m_impl(std::move(state)) {}

void opencl_kernel::set_arg(unsigned index, const buffer_ptr& b) {
  const auto* cl = dynamic_cast<const cl_buffer*>(b.get());
  if (cl == nullptr) {
    KBENCH_THROW("opencl kernel '{}', argument {}: the buffer is not an opencl buffer", m_impl->name, index);
  }
  if (cl->owner() != m_impl->state.get()) {
    KBENCH_THROW("opencl kernel '{}', argument {}: the buffer belongs to another opencl device", m_impl->name,
                 index);
  }
  cl_mem mem = cl->mem();
  m_impl->set_raw(index, sizeof(mem), &mem);
  if (m_impl->bound.size() <= index) {
    m_impl->bound.resize(index + 1);
  }
  m_impl->bound[index] = b;
}

void opencl_kernel::set_arg_i32(unsigned index, std::int32_t value) {
  const cl_int v = value;
  m_impl->set_raw(index, sizeof(v), &v);
}

void opencl_kernel::set_arg_i64(unsigned index, std::int64_t value) {
  const cl_long v = value;
  m_impl->set_raw(index, sizeof(v), &v);
}

void opencl_kernel::set_arg_f32(unsigned index, float value) {
  const cl_float v = value;
  m_impl->set_raw(index, sizeof(v), &v);
}

void opencl_kernel::set_arg_local(unsigned index, std::size_t bytes) {
  m_impl->set_raw(index, bytes, nullptr);
}

event_ptr opencl_kernel::launch(std::span<const std::size_t> global, std::span<const std::size_t> local) {
  if (global.empty() || global.size() > 3) {
    KBENCH_THROW("opencl kernel '{}': launch needs 1 to 3 global sizes, got {}", m_impl->name, global.size());
  }
  if (!local.empty() && local.size() != global.size()) {
    KBENCH_THROW("opencl kernel '{}': {} local sizes for {} global sizes", m_impl->name, local.size(),
                 global.size());
  }
  cl_event raw = nullptr;
  const cl_int status = clEnqueueNDRangeKernel(m_impl->state->queue.get(), m_impl->kernel.get(),
                                               static_cast<cl_uint>(global.size()), nullptr, global.data(),
                                               local.empty() ? nullptr : local.data(), 0, nullptr, &raw);
  check(status, "clEnqueueNDRangeKernel",
        fmt::format("(kernel '{}', global {}, local {})", m_impl->name, sizes_text(global),
                    local.empty() ? std::string("auto") : sizes_text(local)));
  event_handle e(raw);
  // Without a flush a runtime may hold the command in the host-side queue until the next blocking call, and a
  // launch would then not start the device at all.
  check(clFlush(m_impl->state->queue.get()), "clFlush");
  return std::make_shared<cl_event_wrapper>(m_impl->state, std::move(e));
}

// --- opencl_program ----------------------------------------------------------------------------------------
opencl_program::opencl_program(std::shared_ptr<impl> state) : m_impl(std::move(state)) {}

opencl_kernel opencl_program::kernel(const std::string& name) const {
  cl_int status = CL_SUCCESS;
  kernel_handle k(clCreateKernel(m_impl->program.get(), name.c_str(), &status));
  check(status, "clCreateKernel", fmt::format("(kernel '{}')", name));
  auto state = std::make_shared<opencl_kernel::impl>();
  state->state = m_impl->state;
  state->program = m_impl;
  state->kernel = std::move(k);
  state->name = name;
  return opencl_kernel(std::move(state));
}

// --- opencl_device -----------------------------------------------------------------------------------------
opencl_device::opencl_device(std::unique_ptr<impl> state) : m_impl(std::move(state)) {}

opencl_device::~opencl_device() = default;

const device_info& opencl_device::info() const {
  return m_impl->info;
}

buffer_ptr opencl_device::allocate(std::size_t bytes) {
  return std::make_shared<cl_buffer>(m_impl->state, bytes);
}

void opencl_device::barrier() {
  check(clFinish(m_impl->state->queue.get()), "clFinish");
}

void opencl_device::flush_caches() {
  {
    const std::lock_guard lock(m_impl->flush_mutex);
    if (!m_impl->flush_scratch) {
      const cl_device_id id = m_impl->state->device;
      // Twice the device's global-memory cache (a GPU's L2; PoCL reports the cpu's), at least 1 MiB for a
      // device that reports none: a cache's replacement is not strictly least-recently-used. At most the
      // largest buffer the device allows, which twice a large cache can come near (PoCL on a 2-cpu Xeon VM
      // reports its host's 480 MiB L3 and allows 2 GiB).
      const auto cache_bytes =
          static_cast<std::size_t>(device_value<cl_ulong>(id, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE));
      const auto max_buffer_bytes =
          static_cast<std::size_t>(device_value<cl_ulong>(id, CL_DEVICE_MAX_MEM_ALLOC_SIZE));
      // A cpu device's kernels run on the host's cores, whose private caches a fill run by one of the
      // implementation's threads does not reach.
      m_impl->flush_host_caches =
          (device_value<cl_device_type>(id, CL_DEVICE_TYPE) & CL_DEVICE_TYPE_CPU) != 0;
      std::size_t fill_bytes = std::max<std::size_t>(2 * cache_bytes, std::size_t{1} << 20);
      // A cpu device's cache is the host's, which a VM may list whole: there, no more than the host's own
      // flush writes (last_level_flush_bytes: 128 MiB of the 480 MiB above).
      if (m_impl->flush_host_caches) fill_bytes = std::min(fill_bytes, last_level_flush_bytes());
      m_impl->flush_scratch = allocate(std::min(fill_bytes, max_buffer_bytes));
    }
  }
  // In-order queue: the fill runs after the kernels queued before it, and fill() waits for it. Its writes
  // take the cache's lines on a GPU, where the host's caches are not the kernel's.
  m_impl->flush_scratch->fill(std::byte{0});
  if (m_impl->flush_host_caches) device::flush_caches();  // every core's caches, from the host
}

opencl_program opencl_device::build_program(std::string_view source, const config& defines,
                                            std::string_view extra_options) {
  const queue_state& q = *m_impl->state;
  const char* text = source.data();
  const std::size_t length = source.size();
  cl_int status = CL_SUCCESS;
  program_handle program(clCreateProgramWithSource(q.context.get(), 1, &text, &length, &status));
  check(status, "clCreateProgramWithSource");

  std::string options = to_define_flags(defines);
  if (!extra_options.empty()) {
    if (!options.empty()) {
      options += ' ';
    }
    options += extra_options;
  }
  cl_device_id target = q.device;
  status = clBuildProgram(program.get(), 1, &target, options.c_str(), nullptr, nullptr);
  if (status != CL_SUCCESS) {
    std::string log;
    std::size_t size = 0;
    if (clGetProgramBuildInfo(program.get(), target, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size) == CL_SUCCESS &&
        size > 0) {
      log.resize(size);
      if (clGetProgramBuildInfo(program.get(), target, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr) !=
          CL_SUCCESS) {
        log.clear();
      }
      log = trimmed(std::move(log));
    }
    KBENCH_THROW("clBuildProgram failed: {} ({}) with options \"{}\"; build log:\n{}", error_name(status),
                 status, options, log.empty() ? std::string("(empty)") : log);
  }
  auto state = std::make_shared<opencl_program::impl>();
  state->state = m_impl->state;
  state->program = std::move(program);
  return opencl_program(std::move(state));
}

// --- discovery ---------------------------------------------------------------------------------------------
std::vector<device_info> list_devices(std::string* reason) {
  std::vector<device_info> infos;
  try {
    for (const device_entry& entry : enumerate_devices(reason)) {
      infos.push_back(describe(entry.platform, entry.device));
    }
  } catch (const std::exception& e) {
    if (reason != nullptr) {
      *reason = e.what();
    }
  } catch (...) {
    if (reason != nullptr) {
      *reason = "unknown error while listing OpenCL devices";
    }
  }
  return infos;
}

std::shared_ptr<opencl_device> open_device(std::size_t index) {
  std::string reason;
  const std::vector<device_entry> entries = enumerate_devices(&reason);
  if (index >= entries.size()) {
    if (entries.empty()) {
      KBENCH_THROW("cannot open OpenCL device {}: {}", index, reason);
    }
    KBENCH_THROW("cannot open OpenCL device {}: only {} device(s) found", index, entries.size());
  }
  const device_entry& entry = entries[index];

  auto state = std::make_shared<queue_state>();
  state->platform = entry.platform;
  state->device = entry.device;
  const cl_context_properties properties[] = {CL_CONTEXT_PLATFORM,
                                              reinterpret_cast<cl_context_properties>(entry.platform), 0};
  cl_int status = CL_SUCCESS;
  state->context.reset(clCreateContext(properties, 1, &entry.device, nullptr, nullptr, &status));
  check(status, "clCreateContext");
  // In-order (no CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE): commands run in enqueue order, so a blocking read
  // or clFinish orders after every launch. Profiling gives each event its device timestamps.
  state->queue.reset(
      clCreateCommandQueue(state->context.get(), entry.device, CL_QUEUE_PROFILING_ENABLE, &status));
  check(status, "clCreateCommandQueue");

  auto device_state = std::make_unique<opencl_device::impl>();
  device_state->info = describe(entry.platform, entry.device);
  device_state->state = std::move(state);
  return std::make_shared<opencl_device>(std::move(device_state));
}

}  // namespace kbench::opencl
