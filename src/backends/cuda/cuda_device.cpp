// The cuda backend: devices, buffers, modules, functions and events over the run-time-loaded driver API.

#include "backends/cuda/nvml.hpp"
#include "backends/cuda/state.hpp"

#include <kbench/backends/cuda.hpp>
#include <kbench/error.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <exception>
#include <utility>

namespace kbench::cuda {

namespace detail {

// ---- context_state ----------------------------------------------------------------------------------------

context_state::~context_state() {
  // Teardown must not throw: failures are ignored (the driver may already be shutting down at process exit).
  if (api == nullptr || context == nullptr) return;
  if (api->ctx_set_current(context) == CUDA_SUCCESS) {
    if (stream != nullptr) {
      // Work still queued finishes first: destroying the stream does not cancel it, and the context below
      // must not go while it runs.
      api->ctx_synchronize();
      api->stream_destroy(stream);
    }
    for (const CUevent e : m_event_pool) api->event_destroy(e);
    if (reference != nullptr) api->event_destroy(reference);
  }
  api->primary_ctx_release(device);
}

void context_state::make_current() const {
  CUcontext current = nullptr;
  if (api->ctx_get_current(&current) == CUDA_SUCCESS && current == context) return;
  KBENCH_CU_CHECK(*api, "cuCtxSetCurrent", api->ctx_set_current(context));
}

CUevent context_state::acquire_event() {
  {
    const std::lock_guard lock(m_pool_mutex);
    if (!m_event_pool.empty()) {
      const CUevent e = m_event_pool.back();
      m_event_pool.pop_back();
      return e;
    }
  }
  CUevent e = nullptr;
  // Default flags: timing enabled (CU_EVENT_DISABLE_TIMING would make cuEventElapsedTime fail).
  KBENCH_CU_CHECK(*api, "cuEventCreate", api->event_create(&e, CU_EVENT_DEFAULT));
  return e;
}

void context_state::release_event(CUevent e) noexcept {
  if (e == nullptr) return;
  try {
    const std::lock_guard lock(m_pool_mutex);
    m_event_pool.push_back(e);
  } catch (...) {  // no memory for the pool: give the event back to the driver instead
    api->event_destroy(e);
  }
}

// ---- cuda_buffer ------------------------------------------------------------------------------------------

cuda_buffer::cuda_buffer(context_ptr ctx, std::size_t bytes) : m_ctx(std::move(ctx)), m_bytes(bytes) {
  m_ctx->make_current();
  // cuMemAlloc rejects 0 bytes; an empty buffer still gets a valid (unused) address.
  KBENCH_CU_CHECK(*m_ctx->api, fmt::format("cuMemAlloc({} bytes)", bytes),
                  m_ctx->api->mem_alloc(&m_ptr, bytes == 0 ? 1 : bytes));
}

cuda_buffer::~cuda_buffer() {
  if (m_ptr == 0) return;
  if (m_ctx->api->ctx_set_current(m_ctx->context) == CUDA_SUCCESS) m_ctx->api->mem_free(m_ptr);
}

void cuda_buffer::write(const void* src, std::size_t bytes) {
  if (bytes > m_bytes)
    KBENCH_THROW("cuda buffer write of {} bytes into a buffer of {} bytes", bytes, m_bytes);
  if (bytes == 0) return;
  m_ctx->make_current();
  // Synchronous copy on the legacy stream; the device's stream is a blocking stream, so the copy is ordered
  // after every launch made so far and every later launch sees the data.
  KBENCH_CU_CHECK(*m_ctx->api, "cuMemcpyHtoD", m_ctx->api->memcpy_htod(m_ptr, src, bytes));
}

void cuda_buffer::read(void* dst, std::size_t bytes) const {
  if (bytes > m_bytes) KBENCH_THROW("cuda buffer read of {} bytes from a buffer of {} bytes", bytes, m_bytes);
  if (bytes == 0) return;
  m_ctx->make_current();
  // Ordered after all launches on the device's (blocking) stream: returns the results of finished work.
  KBENCH_CU_CHECK(*m_ctx->api, "cuMemcpyDtoH", m_ctx->api->memcpy_dtoh(dst, m_ptr, bytes));
}

// ---- cuda_event -------------------------------------------------------------------------------------------

cuda_event::~cuda_event() {
  m_ctx->release_event(m_start);
  m_ctx->release_event(m_end);
}

bool cuda_event::is_complete() const {
  m_ctx->make_current();
  const CUresult r = m_ctx->api->event_query(m_end);
  if (r == CUDA_SUCCESS) return true;
  if (r == CUDA_ERROR_NOT_READY) return false;
  // Anything else is an error of the launch itself (an illegal address, a trap): sticky, so report it.
  KBENCH_THROW("cuEventQuery failed: {}", m_ctx->api->describe(r));
}

void cuda_event::wait() {
  m_ctx->make_current();
  KBENCH_CU_CHECK(*m_ctx->api, "cuEventSynchronize", m_ctx->api->event_synchronize(m_end));
}

std::optional<device_interval> cuda_event::interval() const {
  if (!is_complete()) return std::nullopt;
  const driver_api& api = *m_ctx->api;
  // Milliseconds between two completed events; nullopt while one is still pending.
  const auto elapsed_ms = [&api](CUevent from, CUevent to) -> std::optional<float> {
    float ms = 0;
    const CUresult r = api.event_elapsed_time(&ms, from, to);
    if (r == CUDA_ERROR_NOT_READY) return std::nullopt;
    if (r != CUDA_SUCCESS) KBENCH_THROW("cuEventElapsedTime failed: {}", api.describe(r));
    return ms;
  };
  const std::optional<float> since_reference_ms = elapsed_ms(m_ctx->reference, m_start);
  const std::optional<float> duration_ms = elapsed_ms(m_start, m_end);
  if (!since_reference_ms || !duration_ms) return std::nullopt;
  device_interval iv;
  iv.start_ns = std::llround(static_cast<double>(*since_reference_ms) * 1e6);
  iv.end_ns = iv.start_ns + std::llround(static_cast<double>(*duration_ms) * 1e6);
  return iv;
}

namespace {

device_info query_info(const driver_api& api, CUdevice dev) {
  device_info info;
  info.backend = backend_kind::cuda;
  char name[256] = {};
  KBENCH_CU_CHECK(api, "cuDeviceGetName", api.device_get_name(name, static_cast<int>(sizeof(name)), dev));
  info.name = name;
  info.vendor = "NVIDIA Corporation";
  info.platform = "CUDA";
  info.driver_version = api.driver_version_text();
  int value = 0;
  KBENCH_CU_CHECK(api, "cuDeviceGetAttribute(MAX_THREADS_PER_BLOCK)",
                  api.device_get_attribute(&value, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, dev));
  info.max_work_group_size = static_cast<std::size_t>(value);
  KBENCH_CU_CHECK(api, "cuDeviceGetAttribute(MULTIPROCESSOR_COUNT)",
                  api.device_get_attribute(&value, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev));
  info.compute_units = static_cast<unsigned>(value);
  std::size_t bytes = 0;
  KBENCH_CU_CHECK(api, "cuDeviceTotalMem", api.device_total_mem(&bytes, dev));
  info.global_memory_bytes = bytes;
  return info;
}

}  // namespace

}  // namespace detail

// ---- cuda_module / cuda_function --------------------------------------------------------------------------

cuda_module::impl::~impl() {
  if (module == nullptr) return;
  if (ctx->api->ctx_set_current(ctx->context) == CUDA_SUCCESS) ctx->api->module_unload(module);
}

cuda_module::cuda_module(std::shared_ptr<impl> state) : m_impl(std::move(state)) {}

cuda_function cuda_module::function(const std::string& name) const {
  const detail::driver_api& api = *m_impl->ctx->api;
  m_impl->ctx->make_current();
  CUfunction f = nullptr;
  if (const CUresult r = api.module_get_function(&f, m_impl->module, name.c_str()); r != CUDA_SUCCESS) {
    // Names are looked up unmangled: kernels are declared extern "C".
    KBENCH_THROW("cuModuleGetFunction(\"{}\") failed: {} (is the kernel declared extern \"C\" __global__?)",
                 name, api.describe(r));
  }
  auto state = std::make_shared<cuda_function::impl>();
  state->module = m_impl;
  state->function = f;
  state->name = name;
  return cuda_function(std::move(state));
}

cuda_function::impl::argument& cuda_function::impl::slot(unsigned index) {
  if (index >= arguments.size()) arguments.resize(index + 1);
  return arguments[index];
}

cuda_function::cuda_function(std::shared_ptr<impl> state) : m_impl(std::move(state)) {}

void cuda_function::set_arg(unsigned index, const buffer_ptr& b) {
  const auto* cb = dynamic_cast<const detail::cuda_buffer*>(b.get());
  if (cb == nullptr) KBENCH_THROW("{}: argument {} is not a cuda buffer", m_impl->name, index);
  if (cb->context() != m_impl->module->ctx.get()) {
    KBENCH_THROW("{}: argument {} is a buffer of another cuda device", m_impl->name, index);
  }
  auto& arg = m_impl->slot(index);
  const CUdeviceptr ptr = cb->device_pointer();
  static_assert(sizeof(ptr) <= sizeof(arg.bytes));
  std::memcpy(arg.bytes, &ptr, sizeof(ptr));
  arg.set = true;
  arg.keep_alive = b;
}

namespace {
template <typename T>
void store_scalar(cuda_function::impl& f, unsigned index, T value) {
  auto& arg = f.slot(index);
  static_assert(sizeof(T) <= sizeof(arg.bytes));
  std::memcpy(arg.bytes, &value, sizeof(T));
  arg.set = true;
  arg.keep_alive.reset();
}
}  // namespace

void cuda_function::set_arg_i32(unsigned index, std::int32_t value) {
  store_scalar(*m_impl, index, value);
}
void cuda_function::set_arg_i64(unsigned index, std::int64_t value) {
  store_scalar(*m_impl, index, value);
}
void cuda_function::set_arg_f32(unsigned index, float value) {
  store_scalar(*m_impl, index, value);
}

event_ptr cuda_function::launch(std::array<unsigned, 3> grid, std::array<unsigned, 3> block,
                                unsigned shared_bytes) {
  impl& f = *m_impl;
  detail::context_state& ctx = *f.module->ctx;
  const detail::driver_api& api = *ctx.api;
  f.params.resize(f.arguments.size());
  for (std::size_t i = 0; i < f.arguments.size(); ++i) {
    if (!f.arguments[i].set) KBENCH_THROW("{}: argument {} was never set", f.name, i);
    f.params[i] = f.arguments[i].bytes;
  }
  ctx.make_current();
  const CUevent start = ctx.acquire_event();
  CUevent end = nullptr;
  try {
    end = ctx.acquire_event();
  } catch (...) {
    ctx.release_event(start);
    throw;
  }
  // The event owns both pool events from here on, so a failed launch gives them back.
  auto e = std::make_shared<detail::cuda_event>(f.module->ctx, start, end);
  KBENCH_CU_CHECK(api, "cuEventRecord(start)", api.event_record(start, ctx.stream));
  if (const CUresult r =
          api.launch_kernel(f.function, grid[0], grid[1], grid[2], block[0], block[1], block[2], shared_bytes,
                            ctx.stream, f.params.empty() ? nullptr : f.params.data(), nullptr);
      r != CUDA_SUCCESS) {
    KBENCH_THROW("cuLaunchKernel({}, grid {}x{}x{}, block {}x{}x{}, {} B shared) failed: {}", f.name, grid[0],
                 grid[1], grid[2], block[0], block[1], block[2], shared_bytes, api.describe(r));
  }
  KBENCH_CU_CHECK(api, "cuEventRecord(end)", api.event_record(end, ctx.stream));
  return e;
}

// ---- cuda_device ------------------------------------------------------------------------------------------

cuda_device::cuda_device(std::unique_ptr<impl> state) : m_impl(std::move(state)) {}
cuda_device::~cuda_device() = default;

const device_info& cuda_device::info() const {
  return m_impl->info;
}

buffer_ptr cuda_device::allocate(std::size_t bytes) {
  return std::make_shared<detail::cuda_buffer>(m_impl->ctx, bytes);
}

void cuda_device::barrier() {
  m_impl->ctx->make_current();
  // Device-wide: waits for every stream of the context, not only for one result.
  KBENCH_CU_CHECK(*m_impl->ctx->api, "cuCtxSynchronize", m_impl->ctx->api->ctx_synchronize());
}

device_clocks cuda_device::clocks() const {
  const detail::context_state& ctx = *m_impl->ctx;
  char bus_id[32] = {};
  if (ctx.api->device_get_pci_bus_id(bus_id, static_cast<int>(sizeof(bus_id)), ctx.device) != CUDA_SUCCESS) {
    device_clocks unknown;
    unknown.detail = "not measured: cuDeviceGetPCIBusId failed";
    return unknown;
  }
  return detail::read_clocks(bus_id);
}

void cuda_device::flush_caches() {
  detail::context_state& ctx = *m_impl->ctx;
  ctx.make_current();
  const std::lock_guard lock(m_impl->flush_mutex);
  if (!m_impl->flush_scratch) {
    int l2_bytes = 0;
    KBENCH_CU_CHECK(*ctx.api, "cuDeviceGetAttribute(L2_CACHE_SIZE)",
                    ctx.api->device_get_attribute(&l2_bytes, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, ctx.device));
    // Twice the L2: its replacement is not strictly least-recently-used, and on H100/H200 it is two
    // partitions. At least 1 MiB, for a driver that reports no L2.
    const std::size_t bytes =
        std::max<std::size_t>(2 * static_cast<std::size_t>(std::max(l2_bytes, 0)), 1 << 20);
    m_impl->flush_scratch = std::make_shared<detail::cuda_buffer>(m_impl->ctx, bytes);
  }
  const detail::cuda_buffer& scratch = *m_impl->flush_scratch;
  // Writes go through the L2 (write-back), so every line of the scratch buffer takes a line of the cache.
  KBENCH_CU_CHECK(
      *ctx.api, "cuMemsetD32Async",
      ctx.api->memset_d32_async(scratch.device_pointer(), 0, scratch.size_bytes() / 4, ctx.stream));
  barrier();
}

cuda_module cuda_device::build_module(std::string_view source, const config& defines) {
  detail::context_state& ctx = *m_impl->ctx;
  const detail::compiled_program program = detail::nvrtc_compile(source, defines, ctx.cc_major, ctx.cc_minor);
  ctx.make_current();
  auto state = std::make_shared<cuda_module::impl>();
  state->ctx = m_impl->ctx;
  state->target = program.target;
  if (const CUresult r = ctx.api->module_load_data(&state->module, program.image.data()); r != CUDA_SUCCESS) {
    // The usual cause: code from an NVRTC newer than the driver (CUDA_ERROR_UNSUPPORTED_PTX_VERSION).
    KBENCH_THROW("cuModuleLoadData failed: {} ({} code from NVRTC {} on driver {})", ctx.api->describe(r),
                 program.target, program.nvrtc_version, ctx.api->driver_version_text());
  }
  return cuda_module(std::move(state));
}

// ---- discovery --------------------------------------------------------------------------------------------

std::vector<device_info> list_devices(std::string* reason) {
  try {
    std::string why;
    const detail::driver_api* api = detail::load_driver(&why);
    if (api == nullptr) {
      if (reason != nullptr) *reason = why;
      return {};
    }
    int count = 0;
    KBENCH_CU_CHECK(*api, "cuDeviceGetCount", api->device_get_count(&count));
    if (count <= 0) {
      if (reason != nullptr) {
        *reason = fmt::format("no CUDA device found (cuDeviceGetCount returned 0; driver {})",
                              api->driver_version_text());
      }
      return {};
    }
    std::vector<device_info> devices;
    for (int i = 0; i < count; ++i) {
      CUdevice dev = 0;
      KBENCH_CU_CHECK(*api, "cuDeviceGet", api->device_get(&dev, i));
      devices.push_back(detail::query_info(*api, dev));
    }
    return devices;
  } catch (const std::exception& e) {
    if (reason != nullptr) *reason = e.what();
    return {};
  }
}

std::shared_ptr<cuda_device> open_device(std::size_t index) {
  std::string why;
  const detail::driver_api* api = detail::load_driver(&why);
  if (api == nullptr) KBENCH_THROW("cuda backend unavailable: {}", why);
  int count = 0;
  KBENCH_CU_CHECK(*api, "cuDeviceGetCount", api->device_get_count(&count));
  if (index >= static_cast<std::size_t>(std::max(count, 0))) {
    KBENCH_THROW("no cuda device {} (found {})", index, count);
  }

  // Built step by step; if a step throws, the state's destructor releases what was made before it.
  auto ctx = std::make_shared<detail::context_state>();
  ctx->api = api;
  ctx->ordinal = static_cast<int>(index);
  KBENCH_CU_CHECK(*api, "cuDeviceGet", api->device_get(&ctx->device, ctx->ordinal));
  KBENCH_CU_CHECK(
      *api, "cuDeviceGetAttribute(COMPUTE_CAPABILITY_MAJOR)",
      api->device_get_attribute(&ctx->cc_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, ctx->device));
  KBENCH_CU_CHECK(
      *api, "cuDeviceGetAttribute(COMPUTE_CAPABILITY_MINOR)",
      api->device_get_attribute(&ctx->cc_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, ctx->device));
  KBENCH_CU_CHECK(*api, "cuDevicePrimaryCtxRetain", api->primary_ctx_retain(&ctx->context, ctx->device));
  ctx->make_current();
  // CU_STREAM_DEFAULT (not NON_BLOCKING): the synchronous copies of cuda_buffer run on the legacy stream and
  // must be ordered with the launches on this one.
  KBENCH_CU_CHECK(*api, "cuStreamCreate", api->stream_create(&ctx->stream, CU_STREAM_DEFAULT));
  KBENCH_CU_CHECK(*api, "cuEventCreate(reference)", api->event_create(&ctx->reference, CU_EVENT_DEFAULT));
  KBENCH_CU_CHECK(*api, "cuEventRecord(reference)", api->event_record(ctx->reference, ctx->stream));

  auto state = std::make_unique<cuda_device::impl>();
  state->info = detail::query_info(*api, ctx->device);
  state->ctx = std::move(ctx);
  return std::make_shared<cuda_device>(std::move(state));
}

}  // namespace kbench::cuda
