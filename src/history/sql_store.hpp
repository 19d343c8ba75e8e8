#pragma once
// The history store over any sql_connection: one schema and one set of statements for SQLite and PostgreSQL.

#include "history/sql_connection.hpp"

#include <kbench/history/store.hpp>

#include <memory>

namespace kbench::history::detail {

/// read_write: creates the schema if absent; read_only: checks that it is there, and refuses to add. Throws
/// kbench::usage_error when the database refuses it (e.g. the file is not a SQLite database) or, read_only,
/// holds no kbench history.
[[nodiscard]] std::unique_ptr<store> make_sql_store(std::unique_ptr<sql_connection> connection,
                                                    std::string description, store_access access);

}  // namespace kbench::history::detail
