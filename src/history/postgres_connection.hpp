#pragma once
// sql_connection over libpq.

#include "history/sql_connection.hpp"

#include <memory>
#include <string>

namespace kbench::history::detail {

/// Connects to the PostgreSQL server of `url` (postgresql://...); throws kbench::usage_error when it cannot
/// be reached or refuses the connection. Gives up after 10 s unless the URL sets connect_timeout.
[[nodiscard]] std::unique_ptr<sql_connection> open_postgres(const std::string& url);

}  // namespace kbench::history::detail
