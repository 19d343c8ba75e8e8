// Loading the CUDA driver API at run time (see driver_api.hpp for why).

#include "backends/cuda/driver_api.hpp"

#include <fmt/format.h>

#include <dlfcn.h>

#include <cstring>

namespace kbench::cuda::detail {

namespace {

#define KBENCH_CUDA_STRINGIFY_EXPANDED(x) KBENCH_CUDA_STRINGIFY(x)
#define KBENCH_CUDA_STRINGIFY(x) #x

struct loaded_driver {
  driver_api api;
  bool ok = false;
  std::string reason;
};

// Copies a dlsym result into a typed function pointer (object pointer -> function pointer is what POSIX
// guarantees to work; memcpy keeps -Wpedantic quiet about the cast).
template <typename Fn>
void assign_symbol(Fn& target, void* symbol) {
  static_assert(sizeof(Fn) == sizeof(void*));
  std::memcpy(&target, &symbol, sizeof(void*));
}

loaded_driver load_once() {
  loaded_driver out;
  // RTLD_LOCAL: the driver's symbols must not interpose on anything else in the process. Never dlclosed: the
  // driver keeps process-wide state and its handles may outlive any owner kbench could name.
  void* handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    out.reason = "libcuda.so.1 not found: no NVIDIA driver on this machine";
    return out;
  }
#define KBENCH_CUDA_LOAD_SYMBOL(member, function) \
  assign_symbol(out.api.member, dlsym(handle, KBENCH_CUDA_STRINGIFY_EXPANDED(function)));
  KBENCH_CUDA_DRIVER_FUNCTIONS(KBENCH_CUDA_LOAD_SYMBOL)
#undef KBENCH_CUDA_LOAD_SYMBOL
  // <cuda.h> 12.8+ maps cuEventElapsedTime to cuEventElapsedTime_v2 (same signature); older drivers only
  // export the original, which measures the same interval.
  if (out.api.event_elapsed_time == nullptr) {
    assign_symbol(out.api.event_elapsed_time, dlsym(handle, "cuEventElapsedTime"));
  }

  std::string missing;
#define KBENCH_CUDA_CHECK_SYMBOL(member, function)       \
  if (out.api.member == nullptr) {                       \
    missing += missing.empty() ? "" : ", ";              \
    missing += KBENCH_CUDA_STRINGIFY_EXPANDED(function); \
  }
  KBENCH_CUDA_DRIVER_FUNCTIONS(KBENCH_CUDA_CHECK_SYMBOL)
#undef KBENCH_CUDA_CHECK_SYMBOL
  if (!missing.empty()) {
    out.reason =
        fmt::format("libcuda.so.1 lacks {}: the NVIDIA driver is too old for this kbench build", missing);
    return out;
  }

  if (out.api.driver_get_version(&out.api.driver_version) != CUDA_SUCCESS) out.api.driver_version = 0;
  if (const CUresult r = out.api.init(0); r != CUDA_SUCCESS) {
    out.reason =
        fmt::format("cuInit failed: {} (driver {})", out.api.describe(r), out.api.driver_version_text());
    return out;
  }
  out.ok = true;
  return out;
}

}  // namespace

std::string driver_api::describe(CUresult code) const {
  const char* name = nullptr;
  const char* text = nullptr;
  if (get_error_name == nullptr || get_error_name(code, &name) != CUDA_SUCCESS || name == nullptr) {
    return fmt::format("CUresult {}", static_cast<int>(code));
  }
  if (get_error_string != nullptr && get_error_string(code, &text) == CUDA_SUCCESS && text != nullptr) {
    return fmt::format("{} ({})", name, text);
  }
  return name;
}

std::string driver_api::driver_version_text() const {
  return fmt::format("{}.{}", driver_version / 1000, (driver_version % 1000) / 10);
}

const driver_api* load_driver(std::string* reason) noexcept {
  try {
    // Function-local static: thread-safe one-time initialization, as cuInit must run once before any call.
    static const loaded_driver driver = load_once();
    if (!driver.ok) {
      if (reason != nullptr) *reason = driver.reason;
      return nullptr;
    }
    return &driver.api;
  } catch (const std::exception& e) {  // only std::bad_alloc can get here
    if (reason != nullptr) *reason = fmt::format("loading the CUDA driver failed: {}", e.what());
    return nullptr;
  }
}

}  // namespace kbench::cuda::detail
