#include <kbench/bench.hpp>
#include <kbench/error.hpp>
#include <kbench/host_cache.hpp>
#include <kbench/suite/triad_probe.hpp>

#include <algorithm>

namespace kbench::suite {

triad_probe make_triad_probe(const device_ptr& device, const std::string& stores, std::size_t elements) {
  if (!is_store_kind(stores)) {
    KBENCH_THROW("unknown store kind '{}' (valid: {}, {})", stores, stores_normal, stores_non_temporal);
  }
  if (elements == 0 || elements % 4 != 0) {
    KBENCH_THROW("a triad probe needs a positive multiple of 4 elements, got {}", elements);
  }
  const stream_arrays arrays = make_stream_arrays(device, elements);
  const stream_kernels kernels = make_stream_kernels(device, arrays.a, arrays.b, arrays.c, elements);
  triad_probe probe;
  probe.bytes_per_call = 3.0 * static_cast<double>(elements * sizeof(float));
  const bool streaming = stores == stores_non_temporal && kernels.triad_streaming;
  probe.stores = streaming ? stores_non_temporal : stores_normal;
  probe.target.name = "triad";
  probe.target.call = streaming ? kernels.triad_streaming : kernels.triad;
  probe.target.barrier = [device] { device->barrier(); };
  return probe;
}

double triad_probe_min_bytes(double requested) {
  if (requested > 0) return requested;
  constexpr double floor_bytes = 64.0 * 1024 * 1024;
  return std::max(floor_bytes, 2.0 * static_cast<double>(last_level_cache_share_bytes()));
}

}  // namespace kbench::suite
