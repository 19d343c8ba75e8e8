#pragma once
// Kernel Tuner's cache file, written by kbench: every config a kbench search evaluated, in the format Kernel
// Tuner (1.x) reads and writes with tune_kernel(..., cache=FILE), so that Kernel Tuner's simulation mode
// (simulation_mode=True) and `kbench tune --simulate` can both replay a kbench search, and Kernel Tuner's
// tools read its results. The format:
//   {"device_name": ..., "kernel_name": ..., "problem_size": [...], "tune_params_keys": [names in order],
//    "tune_params": {name: [values]}, "objective": "time",
//    "cache": {"v1,v2,...": {name: value, ..., "time": ms}}}
// where a failed config's "time" is "CompilationFailedConfig", "RuntimeFailedConfig" or "InvalidConfig".
// kbench's "time" is the config's median synchronized wall latency [ms] (Kernel Tuner's is the mean of its
// timed runs).

#include <kbench/tune/cache.hpp>
#include <kbench/tune/parameter.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace kbench::tune {

/// What identifies a Kernel Tuner cache: Kernel Tuner refuses to continue or replay one whose kernel name,
/// problem size or parameter names (in order) differ from its tune_kernel call's, or, unless simulating,
/// whose device differs.
struct kernel_tuner_header {
  std::string kernel_name;
  std::string device_name;
  std::vector<std::int64_t> problem_size;
  std::vector<parameter> parameters;  // tune_params_keys in this order
};

/// The cache document of `log` (entries in log order; a config evaluated again keeps its last outcome).
[[nodiscard]] nlohmann::json kernel_tuner_cache(const kernel_tuner_header& header,
                                                const std::vector<logged_evaluation>& log);

/// Throws usage_error when `path` cannot take a cache of `header`, before anything is tuned: its directory
/// does not exist, or it exists and is not a Kernel Tuner cache of the same kernel, problem size and
/// parameters (kbench never overwrites a file that is not one).
void check_kernel_tuner_cache(const std::filesystem::path& path, const kernel_tuner_header& header);

/// Writes `document` (kernel_tuner_cache) to `path` atomically. An existing cache of the same kernel keeps
/// its entries, those of `document` replacing the ones with the same key (as Kernel Tuner continues a
/// cache); anything else at `path` is refused as check_kernel_tuner_cache says. Returns the number of
/// entries written.
std::size_t write_kernel_tuner_cache(const std::filesystem::path& path, const nlohmann::json& document);

}  // namespace kbench::tune
