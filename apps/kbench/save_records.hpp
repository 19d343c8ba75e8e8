#pragma once
// The last step of `kbench run` and `kbench measure`: the records appended to the --output/--json file,
// and when that fails after all (the disk filled, the directory was removed during the run) saved in the
// cache directory instead, with a message saying where: a run's results are never lost to its last step.

#include <nlohmann/json.hpp>

#include <string>

namespace kbench::cli {

/// Appends `records` to `path` and says so on stdout; true when they landed there, false when they were
/// saved elsewhere (said on stderr). An empty `path` (no --output, and --db failed) saves them in the cache
/// directory at once. Throws only when neither could be written.
[[nodiscard]] bool save_records(const std::string& path, const nlohmann::json& records);

}  // namespace kbench::cli
