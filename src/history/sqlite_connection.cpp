// sql_connection over SQLite (see sqlite_connection.hpp).

#include "history/sqlite_connection.hpp"

#include <kbench/build_config.hpp>
#include <kbench/error.hpp>

#if KBENCH_HAS_SQLITE
#include <fmt/format.h>
#include <sqlite3.h>

namespace kbench::history::detail {
namespace {

class sqlite_connection final : public sql_connection {
 public:
  explicit sqlite_connection(sqlite3* db) : m_db(db) {}
  ~sqlite_connection() override { sqlite3_close_v2(m_db); }

  std::vector<sql_row> query(const std::string& sql, const std::vector<std::string>& params) override {
    sqlite3_stmt* raw = nullptr;
    if (sqlite3_prepare_v2(m_db, sql.c_str(), static_cast<int>(sql.size()), &raw, nullptr) != SQLITE_OK) {
      KBENCH_THROW("sqlite3_prepare_v2 failed: {} (in: {})", sqlite3_errmsg(m_db), sql);
    }
    const std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> statement(raw, sqlite3_finalize);
    for (std::size_t i = 0; i < params.size(); ++i) {
      // "$1" is a named parameter to SQLite: look its index up rather than assume the order of appearance.
      const int index = sqlite3_bind_parameter_index(raw, fmt::format("${}", i + 1).c_str());
      if (index == 0) continue;
      if (sqlite3_bind_text(raw, index, params[i].c_str(), static_cast<int>(params[i].size()),
                            SQLITE_TRANSIENT) != SQLITE_OK) {
        KBENCH_THROW("sqlite3_bind_text failed: {} (in: {})", sqlite3_errmsg(m_db), sql);
      }
    }
    std::vector<sql_row> rows;
    for (;;) {
      const int rc = sqlite3_step(raw);
      if (rc == SQLITE_DONE) break;
      if (rc != SQLITE_ROW) KBENCH_THROW("sqlite3_step failed: {} (in: {})", sqlite3_errmsg(m_db), sql);
      const int columns = sqlite3_column_count(raw);
      sql_row row;
      row.reserve(static_cast<std::size_t>(columns));
      for (int c = 0; c < columns; ++c) {
        switch (sqlite3_column_type(raw, c)) {
          case SQLITE_NULL:
            row.emplace_back();
            break;
          case SQLITE_FLOAT:  // SQLite's own text form keeps 15 digits; fmt's shortest form reads back
                              // exactly
            row.push_back(fmt::format("{}", sqlite3_column_double(raw, c)));
            break;
          default:
            row.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(raw, c)));
            break;
        }
      }
      rows.push_back(std::move(row));
    }
    return rows;
  }

  [[nodiscard]] std::string_view id_column() const override { return "INTEGER PRIMARY KEY"; }  // the rowid
  [[nodiscard]] std::string_view begin_statement() const override { return "BEGIN IMMEDIATE"; }

 private:
  sqlite3* m_db;
};

}  // namespace

std::unique_ptr<sql_connection> open_sqlite(const std::filesystem::path& path, bool read_only) {
  sqlite3* db = nullptr;
  const int rc =
      sqlite3_open_v2(path.c_str(), &db,
                      read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  if (rc != SQLITE_OK) {
    const std::string why = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close_v2(db);
    throw usage_error(fmt::format("cannot open the history database {}: {}", path.string(), why));
  }
  auto connection = std::make_unique<sqlite_connection>(db);
  // Concurrent writers (nightly shards on one machine) wait for each other instead of failing.
  sqlite3_busy_timeout(db, 30000);  // [ms]
  // SQLite opens lazily: reading the schema is what finds a file that is not a database.
  if (sqlite3_exec(db, "PRAGMA foreign_keys = ON; SELECT count(*) FROM sqlite_master", nullptr, nullptr,
                   nullptr) != SQLITE_OK) {
    throw usage_error(
        fmt::format("cannot open the history database {}: {}", path.string(), sqlite3_errmsg(db)));
  }
  return connection;
}

}  // namespace kbench::history::detail

#else  // built without SQLite

namespace kbench::history::detail {

std::unique_ptr<sql_connection> open_sqlite(const std::filesystem::path& path, bool /*read_only*/) {
  KBENCH_THROW(
      "cannot open the history database {}: this kbench was built without SQLite (KBENCH_WITH_SQLITE)",
      path.string());
}

}  // namespace kbench::history::detail
#endif
