#pragma once
// sql_connection over a SQLite file.

#include "history/sql_connection.hpp"

#include <filesystem>
#include <memory>

namespace kbench::history::detail {

/// Opens the SQLite database at `path`, creating it unless `read_only` (then it is opened read-only: a file
/// without write permission can be read); throws kbench::usage_error when it cannot be opened.
[[nodiscard]] std::unique_ptr<sql_connection> open_sqlite(const std::filesystem::path& path, bool read_only);

}  // namespace kbench::history::detail
