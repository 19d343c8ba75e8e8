#pragma once
// The outcome of one kernel x shape in the suite: the kbench implementation and the torch baseline, checked
// and timed on the same inputs. It travels from a worker process to the runner as JSON.

#include <kbench/config.hpp>
#include <kbench/contention.hpp>
#include <kbench/device.hpp>
#include <kbench/stats.hpp>
#include <kbench/suite/baseline_setting.hpp>

#include <nlohmann/json.hpp>

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kbench::suite {

/// ok; wrong_result (accuracy); build_error; runtime_error (an exception while running); invalid_timing (a
/// sync violation or incomplete capture); crashed (the worker died on a signal); timeout
/// (--timeout-per-kernel); unavailable (the backend has no device here or the kernel no implementation for
/// it); cache_miss (--assert-cache-hit and no tuned config in the cache).
enum class shape_status {
  ok,
  wrong_result,
  build_error,
  runtime_error,
  invalid_timing,
  crashed,
  timeout,
  unavailable,
  cache_miss
};
[[nodiscard]] std::string_view to_string(shape_status status);
[[nodiscard]] shape_status parse_shape_status(std::string_view text);

/// The three measures and checks of one implementation, plus its interleaved latency against the other.
struct impl_result {
  std::string impl;  // "kbench" or "torch"; a Python kernel's baseline: "baseline"
  device_info device;
  // The backend its records name; empty: device.backend's. A Python kernel names the framework whose outputs
  // kbench waited on (jax, torch-cuda, pyopencl, host, ...).
  std::string backend_label;
  std::string config = "{}";  // JSON text
  std::string baseline_form;  // torch: how the baseline calls torch
  bool accurate = false;
  double max_abs_error = 0, max_rel_error = 0;
  std::size_t mismatches = 0;
  std::vector<double> latency_ms;     // interleaved synchronized wall latency, per call
  std::vector<double> throughput_ms;  // per batch
  std::vector<double> device_ms;      // per call
  std::size_t captured = 0, dispatched = 0;
  int sync_violations = 0;
  bool valid = false;
  std::vector<std::string> warnings;
  [[nodiscard]] double median_latency_ms() const;
  /// Empty when the three measures agree; otherwise why not: the median throughput per call more than
  /// max_throughput_to_latency times the interleaved latency's median, or the median device time more than
  /// max_device_to_latency times it (each also more than disagreement_floor_ms apart). The device time and
  /// the throughput come from the measure phase, the latency from the interleaved turns: when they disagree
  /// the two phases ran under different conditions (a busy stretch, threads that fell asleep between calls),
  /// or pipelined calls were slower than synchronized ones (on the cpu backend the dispatching thread takes a
  /// core from the kernel's threads).
  [[nodiscard]] std::string measures_disagreement() const;
};

inline constexpr double max_throughput_to_latency = 2.0;
inline constexpr double max_device_to_latency = 1.25;   // device time is within the call: at most its wall
inline constexpr double disagreement_floor_ms = 0.002;  // [ms] below this apart, timer and scheduler noise

/// A speedup with its uncertainty: ratio = torch / kbench median latency; [low, high] the range the ratio
/// takes while each median ranges over its 99% distribution-free confidence interval (summary::median_ci_*,
/// from order statistics): both true medians lie in theirs with probability >= 98%, and then their ratio
/// lies in [low, high]. It assumes independent samples; drift between the interleaved turns (bench.hpp)
/// makes the true uncertainty larger.
struct speedup_estimate {
  double ratio = 0;
  double low = 0;
  double high = 0;
  bool disturbed = false;                  // timed while the machine was busy (shape_result::machine)
  double min_effect = default_min_effect;  // [fraction] the smallest change called faster or slower
  /// "unreliable" (disturbed: whatever the interval says), "faster" (low > 1 and ratio >= 1 + min_effect),
  /// "slower" (high < 1 and ratio <= 1 / (1 + min_effect)) or "same" (not told apart, or too close to 1).
  [[nodiscard]] std::string_view verdict() const;
};

/// The speedup of an implementation timed in `kbench_ms` over a baseline timed in `baseline_ms` (latency
/// samples [ms] of the same interleaved turns), with its interval; nullopt when either has no samples or a
/// median of 0. `disturbed`: timed while the machine was busy (the verdict is then unreliable). Every
/// front-end's speedup and verdict (kbench run, python -m kbench run) is this one.
[[nodiscard]] std::optional<speedup_estimate> estimate_speedup(std::span<const double> kbench_ms,
                                                               std::span<const double> baseline_ms,
                                                               bool disturbed,
                                                               double min_effect = default_min_effect);

/// [flop per byte moved] from this arithmetic intensity on, a shape is compute bound: judged by its GFLOP/s,
/// not by its share of the memory bandwidth, and timed without a triad beside it. About the ridge point of
/// the roofline of a 2-core AVX-512 cpu (2 cores x 32 fp32 flop per cycle x ~3 GHz ~ 190 GFLOP/s against
/// a ~50 GB/s triad); GPUs' ridges lie higher (fp32 ~15-20 flop/byte), so on a GPU a shape just above it may
/// still wait on memory. The suite's memory-bound kernels declare no flops; bmm does 43-171 per byte.
inline constexpr double compute_bound_flops_per_byte = 4.0;

/// A bandwidth as a share of the memory's peak, or the mark that the caches served it (share_of_peak).
struct peak_share {
  double fraction = 0;  // [fraction of the peak] bandwidth / peak, whatever served it
  bool from_cache = false;
};

/// Whether a device computes on the host's cpus and so shares their caches (the cpu backend, torch on the
/// cpu, an OpenCL cpu device such as PoCL's): its kernels' data stays in the host's last-level cache.
[[nodiscard]] bool shares_host_caches(const device_info& device);
/// [bytes] The cache a shape on `device` can run from, for share_of_peak: the host's last-level cache share
/// (last_level_cache_share_bytes) where the device shares the host's caches, else 0 (judged by the peak
/// only).
[[nodiscard]] double cache_bytes_of(const device_info& device);

/// The STREAM triad timed in the same interleaved turns as the implementations of a large shape
/// (triad_probe.hpp): the memory bandwidth of those moments.
struct triad_turns {
  std::vector<double> latency_ms;  // synchronized wall latency, per call
  double bytes_per_call = 0;       // [bytes]
  std::string stores;              // stores_normal or stores_non_temporal
  /// bytes_per_call / median latency [GB/s]; nullopt without samples.
  [[nodiscard]] std::optional<double> gbps() const;
};

struct shape_result {
  std::string kernel;
  std::string shape;  // "[1024,256]"
  std::size_t shape_index = 0;
  shape_status status = shape_status::ok;
  std::string reason;                     // empty when ok
  double bytes_moved = 0;                 // [bytes per call], 0 when the kernel does not say
  double flops = 0;                       // [floating-point operations per call], 0 when it does not say
  double elapsed_s = 0;                   // [s] wall time the shape took, worker start to end
  std::string config_source = "default";  // suite::config_source of the kbench config: tuned, cache_hit, ...
  double tuning_s = 0;                    // [s] spent choosing the config (searching), 0 on a cache hit
  std::size_t tuning_evaluations = 0;     // configs evaluated for it now
  std::optional<impl_result> kbench, torch;
  std::optional<triad_turns> triad;   // large shapes only (suite::shape_options::triad_stores)
  std::optional<contention> machine;  // what else ran while the shape was timed; nullopt: nothing timed
  std::optional<baseline_setting> baseline;  // the torch baseline's setting and how it was chosen

  /// torch median latency / kbench median latency; nullopt unless both were timed.
  [[nodiscard]] std::optional<double> speedup() const;
  /// speedup() with its interval and the verdict's minimum effect; nullopt unless both were timed.
  [[nodiscard]] std::optional<speedup_estimate> speedup_interval(
      double min_effect = default_min_effect) const;
  /// bytes_moved / kbench median latency [GB/s]; nullopt without either.
  [[nodiscard]] std::optional<double> bandwidth_gbps() const;
  /// flops / kbench median latency [GFLOP/s]; nullopt without either.
  [[nodiscard]] std::optional<double> gflops() const;
  /// flops / bytes_moved >= compute_bound_flops_per_byte (false when either is unknown).
  [[nodiscard]] bool compute_bound() const;
  /// bandwidth_gbps() / triad->gbps(): the share of the memory bandwidth of the same moments that kbench
  /// reached; nullopt without either.
  [[nodiscard]] std::optional<double> triad_fraction() const;
  /// kbench's bandwidth against the memory's calibrated peak `peak_gbps` [GB/s]: nullopt without a
  /// bandwidth or a peak. `from_cache` when the shape is served by the caches rather than the memory, so
  /// that its share of the memory's peak means nothing: it moves no more than `cache_bytes` per call (the
  /// caches its device shares: last_level_cache_share_bytes() for a device on the host's cpus, 0 for one with
  /// caches of its own), or its bandwidth is above the peak.
  [[nodiscard]] std::optional<peak_share> share_of_peak(double peak_gbps, double cache_bytes) const;
};

void to_json(nlohmann::json& j, const impl_result& r);
void from_json(const nlohmann::json& j, impl_result& r);
void to_json(nlohmann::json& j, const triad_turns& t);
void from_json(const nlohmann::json& j, triad_turns& t);
void to_json(nlohmann::json& j, const shape_result& r);
void from_json(const nlohmann::json& j, shape_result& r);

}  // namespace kbench::suite
