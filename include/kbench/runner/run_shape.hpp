#pragma once
// One kernel x shape of the suite, in this process: the kbench implementation for a backend and the torch
// baseline, on the same inputs; both checked against the reference, then measured (three measures) and timed
// interleaved at the same repeat count for the speedup.

#include <kbench/kernel.hpp>
#include <kbench/measure.hpp>
#include <kbench/runner/shape_result.hpp>

#include <cstdint>
#include <optional>

namespace kbench::runner {

struct shape_options {
  backend_kind backend = backend_kind::cpu;
  std::uint64_t seed = 0;
  std::optional<double> atol, rtol;      // override the kernel's tolerance
  bool run_kbench = true;                // --impl kbench
  bool run_torch = true;                 // --impl torch
  double target_ms = 100;                // [ms] time budget each repeat count fills
  std::optional<kbench::config> config;  // the kbench implementation's config (tuned); default when empty
};

[[nodiscard]] shape_result run_shape(const kernel_definition& kernel, std::size_t shape_index,
                                     const shape_options& options);

}  // namespace kbench::runner
