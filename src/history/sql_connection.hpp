#pragma once
// The little SQL the history store needs, over SQLite or libpq: one statement at a time, text parameters
// $1..$n, rows of text. The store writes one schema and one set of statements for both; the connections
// supply the few words where the dialects differ.

#include <string>
#include <string_view>
#include <vector>

namespace kbench::history::detail {

using sql_row = std::vector<std::string>;

class sql_connection {
 public:
  virtual ~sql_connection() = default;
  sql_connection() = default;
  sql_connection(const sql_connection&) = delete;
  sql_connection& operator=(const sql_connection&) = delete;

  /// Runs one statement with `params` bound to $1..$n as text (the database converts them to the column
  /// types); returns its rows, every cell as text (NULL as ""; floating point in a form that reads back
  /// exactly). Throws kbench::error with the database's message.
  virtual std::vector<sql_row> query(const std::string& sql, const std::vector<std::string>& params = {}) = 0;

  /// The column definition of an auto-numbered 64-bit primary key.
  [[nodiscard]] virtual std::string_view id_column() const = 0;

  /// The statement that opens a write transaction (SQLite takes its write lock up front).
  [[nodiscard]] virtual std::string_view begin_statement() const = 0;

  /// The statement run next in every transaction so that writers take turns (empty: begin_statement locks
  /// already). Without it, concurrent writers of one PostgreSQL database (nightly shards adding at once)
  /// fail: on the schema creation race and on unique violations of rows another writer added meanwhile.
  [[nodiscard]] virtual std::string_view write_lock_statement() const { return {}; }
};

/// One transaction: rolled back on destruction unless committed, so an exception never leaves half a write.
class transaction {
 public:
  explicit transaction(sql_connection& connection) : m_connection(connection) {
    m_connection.query(std::string(m_connection.begin_statement()));
    if (const auto lock = m_connection.write_lock_statement(); !lock.empty()) {
      try {
        m_connection.query(std::string(lock));
      } catch (...) {
        m_connection.query("ROLLBACK");
        throw;
      }
    }
  }
  transaction(const transaction&) = delete;
  transaction& operator=(const transaction&) = delete;
  ~transaction() {
    if (m_open) {
      try {
        m_connection.query("ROLLBACK");
      } catch (...) {  // NOLINT(bugprone-empty-catch): the connection's own error is already propagating
      }
    }
  }
  void commit() {
    m_connection.query("COMMIT");
    m_open = false;
  }

 private:
  sql_connection& m_connection;
  bool m_open = true;
};

}  // namespace kbench::history::detail
