#pragma once
// Simulation: replay a strategy against a recorded space, where an evaluation looks up the recorded time, to
// score strategies without hardware.
//
// Two file formats are read, plain or gzip-compressed (.gz):
//
// 1. Kernel Tuner cache files: top-level "tune_params_keys" (parameter order), "tune_params" (name ->
// values),
//    "cache" (key -> entry with each parameter's value and "time" in ms). An entry whose "time" is a string
//    ("CompilationFailedConfig", "RuntimeFailedConfig", "InvalidConfig", ...) is a failed config and stays in
//    the space as a failure. Configs absent from "cache" are taken as excluded by the tuner's constraints.
//    Integer-valued parameters become integer lists (marked block-size-like when the name contains
//    "block_size"), others enums labelled by their JSON text.
//
// 2. kbench config logs (what kbench writes; `format` identifies them):
//      {
//        "format": "kbench-config-log", "version": 1,
//        "kernel": "softmax", "device": "NVIDIA A100",            (optional, descriptive)
//        "parameters": [
//          {"name": "BLOCK", "kind": "power_of_two", "values": [32, 64, 128], "block_size": true},
//          {"name": "LAYOUT", "kind": "enumeration", "labels": ["row", "col"]},
//          {"name": "USE_LOCAL", "kind": "boolean"},
//          {"name": "UNROLL", "kind": "integers", "values": [1, 2, 3]}
//        ],
//        "default": {"BLOCK": 64, "LAYOUT": 0, "USE_LOCAL": 0, "UNROLL": 1},  (optional)
//        "configs": [
//          {"values": {"BLOCK": 32, "LAYOUT": 0, "USE_LOCAL": 1, "UNROLL": 2}, "status": "ok", "time_ms":
//          0.125},
//          {"values": {"BLOCK": 128, "LAYOUT": 1, "USE_LOCAL": 1, "UNROLL": 3}, "status": "compile_error"}
//        ]
//      }
//    Enum values in "values" are indices into "labels"; booleans are 0/1; "status" is an eval_status name
//    (evaluation.hpp); "time_ms" [ms] is required when the status is "ok" and absent otherwise.
//
// A file that is neither, or is malformed, throws usage_error naming the file and the problem.

#include <kbench/tune/enumerated_space.hpp>
#include <kbench/tune/evaluation.hpp>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace kbench::tune {

/// A fully measured space: the configs and, for each id, its recorded outcome.
struct recorded_space {
  std::string description;  // e.g. "convolution_kernel on NVIDIA A100-PCIE-40GB"
  enumerated_space space;
  std::vector<evaluation> outcomes;  // outcomes[id].id == id
  std::optional<config_id> optimum;  // fastest ok config; nullopt when none succeeded
};

[[nodiscard]] recorded_space load_recorded_space(const std::filesystem::path& path);
/// Parses file contents (already decompressed); `source` names it in error messages.
[[nodiscard]] recorded_space parse_recorded_space(std::string_view text, std::string_view source);
/// Writes a kbench config log (plain JSON) of `outcomes` over `space`; only evaluated configs need be listed.
void save_config_log(const std::filesystem::path& path, const enumerated_space& space,
                     const std::vector<evaluation>& outcomes, std::string_view kernel = {},
                     std::string_view device = {});

struct simulation_options {
  std::vector<std::size_t> budgets{25, 50, 100, 200};  // evaluations at which each run's search is scored
  std::size_t runs = 100;                              // seeded runs per budget (seeds seed, seed+1, ...)
  std::uint64_t seed = 1;
};

/// What one budget found over the seeded runs.
struct budget_outcome {
  std::size_t budget = 0;  // evaluations
  // t_opt / t_best_found of every run, in seed order (0 for a run that found no working config).
  std::vector<double> fractions;

  [[nodiscard]] double mean() const;
  /// Quantile q in [0, 1] of the fractions (linear interpolation, as kbench::quantile).
  [[nodiscard]] double quantile(double q) const;
  /// Share of the runs [0, 1] whose best config is at least `fraction` of the optimum.
  [[nodiscard]] double share_reaching(double fraction) const;
};

/// One outcome per budget, in the order of options.budgets. Each run is one search with max_evals = the
/// largest budget, scored at every budget from its anytime curve (the best time among its first N
/// evaluations), as the published comparisons of tuners do: a run's fraction never falls as the budget grows
/// (separate searches per budget made curves that did, budget-aware strategies sizing themselves anew). A
/// mean hides how a search fails on a rugged space: some runs find the optimum and others stay in a trap,
/// which the spread shows.
[[nodiscard]] std::vector<budget_outcome> simulate(const recorded_space& recorded,
                                                   std::string_view strategy_name,
                                                   const simulation_options& options);

}  // namespace kbench::tune
