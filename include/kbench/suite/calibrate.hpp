#pragma once
// `kbench calibrate`: the peak memory bandwidth a device reaches, by STREAM's copy (b = a) and triad
// (a = b + s * c) kernels, timed with the synchronized wall latency. Cached per backend and device, so that
// `kbench run` can report each memory-bound kernel's % of peak.

#include <kbench/backends/stream_kernels.hpp>  // stores_normal, stores_non_temporal
#include <kbench/device.hpp>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

namespace kbench::suite {

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
  std::int64_t timestamp = 0;  // [s since the Unix epoch] of the calibration that reached the peak
  /// What measured it: "kbench calibrate", or the triad timed beside a shape of `kbench run` that went above
  /// the calibrated peak ("same-turns triad beside add [4096,4096]").
  std::string source = "kbench calibrate";
  int calibrations =
      1;  // how many stored calibrations younger than calibration_max_age_days it is the best of
};

/// [days] A cached calibration older than this is not used: `kbench run` calibrates again.
inline constexpr double calibration_max_age_days = 30;
/// The calibrations kept per device; the peak is the best of those younger than calibration_max_age_days.
inline constexpr std::size_t calibrations_kept = 20;

/// Measures `device` (cpu, opencl or cuda) with arrays of `elements` floats (default 2^25 = 128 MiB each):
/// copy and triad alternate over 5 rounds of 100 ms of calls each; the best round is the peak. On the cpu
/// backend each round times both with normal and with non-temporal stores and keeps the faster.
/// `on_round(round, rounds, triad_gbps)`, when given, hears of each round as it ends (1-based), for
/// progress: on a host of many cores a calibration takes tens of seconds.
[[nodiscard]] calibration calibrate_device(
    const device_ptr& device, std::size_t elements = stream_default_elements,
    const std::function<void(int round, int rounds, double triad_gbps)>& on_round = {});

/// The peak of this backend and device: the best (highest triad) of its cached calibrations younger than
/// calibration_max_age_days, with its date and `calibrations` saying how many it was the best of; nullopt
/// when there is none (a corrupt cache file is reported and ignored). On a shared host one calibration can
/// catch a busy stretch; the best of several is the memory's peak.
[[nodiscard]] std::optional<calibration> cached_calibration(const device_info& device);
/// Adds `c` to the device's cached calibrations (atomically; the oldest beyond calibrations_kept are
/// dropped; other devices' entries are kept; a cache file that does not parse is renamed aside by move_aside,
/// never overwritten).
void store_calibration(const calibration& c);
/// When a triad timed beside a shape reached `triad_gbps` above `peak`'s, adds it as a calibration of
/// `source` (the copy bandwidth and store kind of `peak`) and returns the raised peak; otherwise nullopt.
[[nodiscard]] std::optional<calibration> raise_peak(const calibration& peak, double triad_gbps,
                                                    const std::string& source);

}  // namespace kbench::suite
