#pragma once
// One kernel x shape of the suite, in this process: the kbench implementation for a backend and the torch
// baseline, on the same inputs; both checked against the reference, then measured (three measures) and timed
// interleaved at the same repeat count for the speedup; a large shape also times a STREAM triad in those
// turns, for its share of the bandwidth of the same moments.

#include <kbench/backends/stream_kernels.hpp>
#include <kbench/measure.hpp>
#include <kbench/suite/kernel.hpp>
#include <kbench/suite/shape_result.hpp>
#include <kbench/timing_budget.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace kbench::suite {

struct shape_options {
  backend_kind backend = backend_kind::cpu;
  std::uint64_t seed = 0;
  std::optional<double> atol, rtol;                    // override the kernel's tolerance
  bool run_kbench = true;                              // --impl kbench
  bool run_torch = true;                               // --impl torch
  double target_ms = default_timing_budget.target_ms;  // [ms] time budget each repeat count fills
  std::optional<kbench::config> config;  // the kbench implementation's config (tuned); default when empty
  std::optional<kbench::config> torch_config;  // the torch baseline's (baseline_tuning.hpp); default: {}
  /// Set: a shape that moves at least triad_min_bytes per call also times a STREAM triad with these stores
  /// (stores_normal or stores_non_temporal; `kbench run` passes its calibration's) on the kbench device, in
  /// the same interleaved turns as the implementations (shape_result::triad). Empty: no triad.
  std::optional<std::string> triad_stores;
  double triad_min_bytes = 0;                            // [bytes per call] 0: triad_probe_min_bytes()
  std::size_t triad_elements = stream_default_elements;  // [floats] per array of the triad
  /// [s] > 0: wait up to this long for a quiet machine before timing (wait_for_quiet), and fail the shape
  /// (invalid_timing) when it is not quiet then or was disturbed while timed. 0: time whatever the machine
  /// does, and mark it.
  double require_quiet_s = 0;
};

[[nodiscard]] shape_result run_shape(const kernel_definition& kernel, std::size_t shape_index,
                                     const shape_options& options);

}  // namespace kbench::suite
