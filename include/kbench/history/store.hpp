#pragma once
// The results history: a database of runs, series and points behind one interface, with SQLite (a local
// file, the default) and PostgreSQL (libpq, shared by many machines) under the same schema.
//
// **Example**:
//   auto db = kbench::history::open_store("sqlite:///tmp/h.db");
//   db->add(kbench::history::runs_from_records(records, "abc123"));
//   for (const auto& s : db->series({"softmax_two_pass"})) ...

#include <kbench/history/series.hpp>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace kbench::history {

struct add_summary {
  std::size_t runs_added = 0;
  std::size_t runs_skipped = 0;  // already stored: same host and timestamp
  std::size_t points_added = 0;
};

/// What reading the history returns.
struct series_query {
  std::vector<std::string> kernels;  // only these kernels (empty = all)
  bool with_samples = false;         // also load the raw samples (larger)
};

class store {
 public:
  virtual ~store() = default;
  store() = default;
  store(const store&) = delete;
  store& operator=(const store&) = delete;

  /// Stores `runs` in one transaction: either every run is stored or, on any error, none is. A run already
  /// stored (same host and timestamp) is skipped, so adding a file twice does not double its history.
  add_summary add(const std::vector<run_records>& runs) { return do_add(runs); }

  /// Every series matching `query`, sorted by key, each with its points oldest run first.
  [[nodiscard]] std::vector<series_history> series(const series_query& query = {}) {
    return do_series(query);
  }

  /// The database, for messages (a PostgreSQL URL without its password).
  [[nodiscard]] const std::string& description() const { return m_description; }

 protected:
  explicit store(std::string description) : m_description(std::move(description)) {}
  virtual add_summary do_add(const std::vector<run_records>& runs) = 0;
  virtual std::vector<series_history> do_series(const series_query& query) = 0;

 private:
  std::string m_description;
};

/// How a command uses the history: to add to it (the database and its schema are created where absent), or
/// only to read it (nothing is created or written: a missing database, or one without kbench's tables, is an
/// error, and a read-only file can be read).
enum class store_access { read_write, read_only };

/// Opens the database `url` (read_write: creating it and its schema if needed):
///   postgresql://user@host:port/db or postgres://...  PostgreSQL through libpq
///   host=... dbname=... (libpq's key=value string)      PostgreSQL too: a string that starts with
///                                                      "keyword=" is never taken as a file name
///   sqlite:///path/to/file.db or a plain path          SQLite
///   empty                                              default_database_url()
/// A database that cannot be reached or opened, or a file that is not a SQLite database, throws
/// kbench::usage_error with the reason; so does, read_only, a database that does not exist or has no
/// kbench history in it.
[[nodiscard]] std::unique_ptr<store> open_store(const std::string& url,
                                                store_access access = store_access::read_write);

/// $KBENCH_DB when set, else ~/.local/share/kbench/history.db ($XDG_DATA_HOME honoured).
[[nodiscard]] std::string default_database_url();

/// `url` with every credential replaced by "***", for messages: the password of a postgresql:// URL's user,
/// password= and sslpassword= in its query, and the same keywords in a key=value connection string.
[[nodiscard]] std::string redact_url(const std::string& url);

/// Whether `url` is a libpq key=value connection string ("host=db.example dbname=kbench").
[[nodiscard]] bool is_postgres_keyword_string(const std::string& url);

}  // namespace kbench::history
