#pragma once
// What a run says about its results, whoever ran them (kbench run's C++ kernels, python -m kbench run's
// Python kernels): the table of shapes, the totals and the geometric-mean speedup, the verdict counts,
// whether the measures agreed and the machine was quiet, and why each shape that is not ok is not. One
// judgement for both front-ends: each adds only the notes that are its own (calibration, tuning, baselines).

#include <kbench/suite/calibrate.hpp>
#include <kbench/suite/shape_result.hpp>
#include <kbench/timing_budget.hpp>

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kbench::suite {

struct results_summary_options {
  std::size_t planned = 0;  // shapes planned (more than the results when the run was stopped)
  double elapsed_s = 0;     // [s] the whole run
  double min_effect = default_timing_budget.min_effect;
  std::optional<calibration> peak;  // set: a % peak BW column (and "cache"); else a GB/s column
  std::string baseline = "torch";   // what the speedups are against, as the table and the counts name it
  bool baseline_setting = true;     // a "torch setting" column (the baseline's threads and spin count)
  bool triad = true;                // a "% triad" column
};

struct results_summary {
  std::string text;                  // the table, Total, the verdict counts, Measures and Machine lines
  std::vector<std::string> reasons;  // why a shape failed, disagreed or was disturbed: "kernel shape: why"
  std::size_t triad_shapes = 0;      // shapes with a triad timed beside them
  std::size_t compute_bound_shapes = 0;               // shapes shown in GFLOP/s
  std::size_t cache_shapes = 0;                       // shapes the caches served: "cache" in % peak BW
  std::map<std::string, std::string> baseline_forms;  // kernel -> how its torch baseline calls torch
};

[[nodiscard]] results_summary summarize_results(const std::vector<shape_result>& results,
                                                const results_summary_options& options);

}  // namespace kbench::suite
