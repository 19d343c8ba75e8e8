#pragma once
// The CUDA driver API, loaded at run time with dlopen("libcuda.so.1") so that a kbench built with the toolkit
// still starts on machines without an NVIDIA driver. Only <cuda.h> is used at build time (for types and for
// the versioned symbol names its macros map to, e.g. cuMemAlloc -> cuMemAlloc_v2); nothing links libcuda.
// Private to src/backends/cuda.

#include <kbench/error.hpp>

#include <cuda.h>

#include <string>

namespace kbench::cuda::detail {

// X(member, function): every driver function the backend calls. The symbol looked up is the name the
// function's macro in <cuda.h> expands to, so the ABI matches the header's declaration exactly.
#define KBENCH_CUDA_DRIVER_FUNCTIONS(X)             \
  X(init, cuInit)                                   \
  X(driver_get_version, cuDriverGetVersion)         \
  X(get_error_name, cuGetErrorName)                 \
  X(get_error_string, cuGetErrorString)             \
  X(device_get_count, cuDeviceGetCount)             \
  X(device_get, cuDeviceGet)                        \
  X(device_get_name, cuDeviceGetName)               \
  X(device_get_pci_bus_id, cuDeviceGetPCIBusId)     \
  X(device_get_attribute, cuDeviceGetAttribute)     \
  X(device_total_mem, cuDeviceTotalMem)             \
  X(primary_ctx_retain, cuDevicePrimaryCtxRetain)   \
  X(primary_ctx_release, cuDevicePrimaryCtxRelease) \
  X(ctx_get_current, cuCtxGetCurrent)               \
  X(ctx_set_current, cuCtxSetCurrent)               \
  X(ctx_synchronize, cuCtxSynchronize)              \
  X(stream_create, cuStreamCreate)                  \
  X(stream_destroy, cuStreamDestroy)                \
  X(mem_alloc, cuMemAlloc)                          \
  X(mem_free, cuMemFree)                            \
  X(memcpy_htod, cuMemcpyHtoD)                      \
  X(memcpy_dtoh, cuMemcpyDtoH)                      \
  X(memset_d32_async, cuMemsetD32Async)             \
  X(module_load_data, cuModuleLoadData)             \
  X(module_unload, cuModuleUnload)                  \
  X(module_get_function, cuModuleGetFunction)       \
  X(launch_kernel, cuLaunchKernel)                  \
  X(event_create, cuEventCreate)                    \
  X(event_record, cuEventRecord)                    \
  X(event_query, cuEventQuery)                      \
  X(event_synchronize, cuEventSynchronize)          \
  X(event_elapsed_time, cuEventElapsedTime)         \
  X(event_destroy, cuEventDestroy)

/// Function pointers into libcuda.so.1, typed from the declarations in <cuda.h>.
struct driver_api {
#define KBENCH_CUDA_DECLARE_MEMBER(member, function) decltype(&::function) member = nullptr;
  KBENCH_CUDA_DRIVER_FUNCTIONS(KBENCH_CUDA_DECLARE_MEMBER)
#undef KBENCH_CUDA_DECLARE_MEMBER

  int driver_version = 0;  // cuDriverGetVersion: 1000 * major + 10 * minor

  /// "CUDA_ERROR_NO_DEVICE (no CUDA-capable device is detected)", or the number when the driver does not
  /// know the code.
  [[nodiscard]] std::string describe(CUresult code) const;
  /// "13.0" from driver_version.
  [[nodiscard]] std::string driver_version_text() const;
};

/// Loads libcuda.so.1 and its functions and runs cuInit(0), once per process. Returns nullptr when that
/// failed, with the reason in `reason` (if given): no driver, a driver too old for a symbol, cuInit's error.
/// Never throws.
[[nodiscard]] const driver_api* load_driver(std::string* reason = nullptr) noexcept;

}  // namespace kbench::cuda::detail

/// Runs a driver call and throws kbench::error naming `call_name` and the driver's error when it fails.
/// **Example**: `KBENCH_CU_CHECK(api, "cuCtxSynchronize", api.ctx_synchronize());`
#define KBENCH_CU_CHECK(api, call_name, ...)                                      \
  do {                                                                            \
    const CUresult kbench_cu_result = (__VA_ARGS__);                              \
    if (kbench_cu_result != CUDA_SUCCESS) {                                       \
      KBENCH_THROW("{} failed: {}", call_name, (api).describe(kbench_cu_result)); \
    }                                                                             \
  } while (false)
