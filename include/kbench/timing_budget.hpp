#pragma once
// kbench's timing defaults, declared once. The kbench tool, the suite and its workers, and the Python
// package (through its binding, kbench._kbench.timing_defaults) all read them from here, so that a flag has
// the same default in every front-end.

#include <cstddef>

namespace kbench {

/// How long kbench times things, and when it calls a difference real. A default-constructed one holds the
/// defaults (default_timing_budget).
struct timing_budget {
  double target_ms = 100;             // [ms] each measurement's repeat count fills this (measure, run)
  double tune_target_ms = 50;         // [ms] each tuning config's timed calls fill this
  double retime_within = 1.5;         // [ratio to the best so far] configs re-timed against it
  std::size_t retime_top = 5;         // configs re-timed interleaved at the end of a search, at most
  double give_up_above = 2;           // [ratio to the best so far] configs timed from their first calls only
  double min_effect = 0.02;           // [fraction] the smallest speedup called faster or slower
  double timeout_per_kernel_s = 600;  // [s] a kernel x shape's worker running longer is killed (timeout)
  double config_timeout_s = 60;       // [s] per tuning config: build, check and timing in its worker
};

inline constexpr timing_budget default_timing_budget{};

}  // namespace kbench
