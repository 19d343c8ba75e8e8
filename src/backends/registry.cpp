#include <kbench/backends/cpu.hpp>
#include <kbench/backends/registry.hpp>
#include <kbench/build_config.hpp>
#include <kbench/error.hpp>

#if KBENCH_HAS_OPENCL
#include <kbench/backends/opencl.hpp>
#endif
#if KBENCH_HAS_CUDA
#include <kbench/backends/cuda.hpp>
#endif

#include <map>
#include <utility>

namespace kbench {

namespace {

/// Function-local so that a provider registering from another translation unit never sees it uninitialized.
std::map<backend_kind, backend_provider>& providers() {
  static std::map<backend_kind, backend_provider> registered;
  return registered;
}

const backend_provider* find_provider(backend_kind kind) {
  const auto it = providers().find(kind);
  return it == providers().end() ? nullptr : &it->second;
}

backend_status probe(backend_kind kind) {
  backend_status status;
  status.kind = kind;
  try {
    switch (kind) {
      case backend_kind::cpu:
        status.compiled = true;
        status.devices = cpu::list_devices();
        break;
      case backend_kind::opencl:
#if KBENCH_HAS_OPENCL
        status.compiled = true;
        status.devices = opencl::list_devices(&status.reason);
#else
        status.reason = "not built with OpenCL support (no OpenCL headers/ICD loader at build time)";
#endif
        break;
      case backend_kind::cuda:
#if KBENCH_HAS_CUDA
        status.compiled = true;
        status.devices = cuda::list_devices(&status.reason);
#else
        status.reason = "not built with CUDA support (no CUDA toolkit at build time)";
#endif
        break;
      case backend_kind::torch:
        if (const backend_provider* torch = find_provider(kind)) {
          status.compiled = true;
          status.devices = torch->list();
        } else {
          status.reason =
              "not built with libtorch (KBENCH_WITH_TORCH=OFF, or libtorch not found at build time)";
        }
        break;
    }
  } catch (const std::exception& e) {
    status.devices.clear();
    status.reason = e.what();
  }
  status.available = !status.devices.empty();
  if (!status.available && status.reason.empty()) status.reason = "no device found";
  return status;
}

}  // namespace

bool register_backend_provider(backend_kind kind, backend_provider provider) {
  providers()[kind] = std::move(provider);
  return true;
}

std::vector<backend_status> probe_backends() {
  std::vector<backend_status> result;
  for (backend_kind kind : all_backend_kinds()) result.push_back(probe(kind));
  return result;
}

backend_kind pick_auto_backend() {
  for (backend_kind kind : {backend_kind::cuda, backend_kind::opencl}) {
    if (probe(kind).available) return kind;
  }
  return backend_kind::cpu;
}

device_ptr open_device(backend_kind kind, std::size_t index) {
  switch (kind) {
    case backend_kind::cpu:
      if (index != 0) KBENCH_THROW("the cpu backend has one device (index 0), not {}", index);
      return cpu::open_device();
    case backend_kind::opencl:
#if KBENCH_HAS_OPENCL
      return opencl::open_device(index);
#else
      KBENCH_THROW("opencl backend unavailable: not built with OpenCL support");
#endif
    case backend_kind::cuda:
#if KBENCH_HAS_CUDA
      return cuda::open_device(index);
#else
      KBENCH_THROW("cuda backend unavailable: not built with CUDA support");
#endif
    case backend_kind::torch:
      if (const backend_provider* torch = find_provider(kind)) return torch->open(index);
      KBENCH_THROW("torch baseline unavailable: not built with libtorch");
  }
  KBENCH_THROW("unknown backend");
}

}  // namespace kbench
