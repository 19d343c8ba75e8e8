#pragma once
// sql_connection over a SQLite file.

#include "history/sql_connection.hpp"

#include <filesystem>
#include <memory>

namespace kbench::history::detail {

/// Opens (creating) the SQLite database at `path`; throws kbench::usage_error when it cannot be opened.
[[nodiscard]] std::unique_ptr<sql_connection> open_sqlite(const std::filesystem::path& path);

}  // namespace kbench::history::detail
