#pragma once
// From v3 result files (docs/suite.md, "Results files") to what the history stores and what `kbench compare`
// compares.

#include <kbench/history/series.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace kbench::history {

/// The parsed list of v3 records in `path`. A file that cannot be read, is not JSON, or is not a list of v3
/// records throws kbench::usage_error naming the file and the reason.
[[nodiscard]] nlohmann::json read_results_file(const std::filesystem::path& path);

/// The same for text already read; `origin` names it in messages (a path, "<stdin>").
[[nodiscard]] nlohmann::json parse_results(const std::string& text, const std::string& origin);

/// The series key of one v3 record (fields that are absent are "").
[[nodiscard]] series_key key_of(const nlohmann::json& record);

/// Numeric metric.benchmark_values of `record`; a value that is not a finite number throws usage_error.
[[nodiscard]] std::vector<double> values_of(const nlohmann::json& record);

/// Groups valid v3 `records` into runs, one per (host, timestamp), oldest first. `commit` is recorded on
/// every run; when empty, benchmark.extra_info.commit is used where present. Records without values are
/// left out. A key repeated within one run keeps its last record (a file appended to twice by one run).
[[nodiscard]] std::vector<run_records> runs_from_records(const nlohmann::json& records,
                                                         const std::string& commit);

}  // namespace kbench::history
