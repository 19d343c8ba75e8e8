#include <kbench/device.hpp>
#include <kbench/error.hpp>
#include <kbench/host_cache.hpp>

#include <fmt/format.h>

namespace kbench {

void device::flush_caches() {
  flush_host_cache();
}

const std::vector<backend_kind>& all_backend_kinds() {
  static const std::vector<backend_kind> kinds{backend_kind::cpu, backend_kind::opencl, backend_kind::cuda,
                                               backend_kind::torch};
  return kinds;
}

std::string_view to_string(backend_kind kind) {
  switch (kind) {
    case backend_kind::cpu:
      return "cpu";
    case backend_kind::opencl:
      return "opencl";
    case backend_kind::cuda:
      return "cuda";
    case backend_kind::torch:
      return "torch";
  }
  return "unknown";
}

backend_kind parse_backend_kind(std::string_view name) {
  for (backend_kind kind : all_backend_kinds()) {
    if (to_string(kind) == name) return kind;
  }
  throw usage_error(fmt::format("unknown backend '{}' (valid: cpu, opencl, cuda, torch)", name));
}

}  // namespace kbench
