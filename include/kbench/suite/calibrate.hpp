#pragma once
// `kbench calibrate`: the peak memory bandwidth a device reaches, by STREAM's copy (b = a) and triad
// (a = b + s * c) kernels, timed with the synchronized wall latency. Cached per backend and device, so that
// `kbench run` can report each memory-bound kernel's % of peak.

#include <kbench/backends/stream_kernels.hpp>  // stores_normal, stores_non_temporal
#include <kbench/device.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace kbench {

struct calibration {
  std::string backend;
  std::string device;
  std::size_t elements = 0;  // per array [float32 elements]
  // Bandwidths [GB/s, 1e9 bytes]: bytes moved per call (copy 2, triad 3 arrays x 4 bytes per element) /
  // median wall latency of a round's calls; the best of `rounds` rounds, and the worst (the spread).
  double copy_gbps = 0;
  double triad_gbps = 0;
  double copy_low_gbps = 0;
  double triad_low_gbps = 0;
  int rounds = 0;
  // The store kind that reached each peak: stores_normal, or stores_non_temporal (the cpu backend times both
  // kinds in every round and keeps the faster one).
  std::string copy_stores = stores_normal;
  std::string triad_stores = stores_normal;
  std::int64_t timestamp = 0;  // [s since the Unix epoch]
};

/// Measures `device` (cpu, opencl or cuda) with arrays of `elements` floats (default 2^25 = 128 MiB each):
/// copy and triad alternate over 5 rounds of 100 ms of calls each; the best round is the peak. On the cpu
/// backend each round times both with normal and with non-temporal stores and keeps the faster.
[[nodiscard]] calibration calibrate_device(const device_ptr& device,
                                           std::size_t elements = stream_default_elements);

/// The cached calibration of this backend and device, if any (a corrupt cache file is reported and ignored).
[[nodiscard]] std::optional<calibration> cached_calibration(const device_info& device);
/// Stores `c` in the cache (atomically; other devices' entries are kept; a cache file that does not parse is
/// renamed aside by move_aside, never overwritten).
void store_calibration(const calibration& c);

}  // namespace kbench
