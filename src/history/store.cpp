// Opening the history store by URL (see store.hpp).

#include <kbench/error.hpp>
#include <kbench/history/store.hpp>

#include "history/postgres_connection.hpp"
#include "history/sql_store.hpp"
#include "history/sqlite_connection.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <regex>
#include <system_error>

namespace kbench::history {
namespace {

bool starts_with(const std::string& s, std::string_view prefix) {
  return s.rfind(prefix, 0) == 0;
}

std::filesystem::path default_database_path() {
  if (const char* xdg = std::getenv("XDG_DATA_HOME"); xdg != nullptr && *xdg != '\0') {
    return std::filesystem::path(xdg) / "kbench" / "history.db";
  }
  const char* home = std::getenv("HOME");
  return std::filesystem::path(home != nullptr && *home != '\0' ? home : ".") / ".local" / "share" /
         "kbench" / "history.db";
}

}  // namespace

std::string default_database_url() {
  if (const char* db = std::getenv("KBENCH_DB"); db != nullptr && *db != '\0') return db;
  return default_database_path().string();
}

bool is_postgres_keyword_string(const std::string& url) {
  static const std::regex keyword_first(R"(^\s*[A-Za-z_]+\s*=)");
  return std::regex_search(url, keyword_first);
}

std::string redact_url(const std::string& url) {
  // libpq's credential keywords: in a URL's query (?password=...&) and in a key=value string, where a value
  // may be quoted ('it''s', with backslash escapes).
  static const std::regex in_query(R"(([?&](?:ssl)?password=)[^&]*)", std::regex::icase);
  static const std::regex in_keywords(R"(((?:^|\s)(?:ssl)?password\s*=\s*)('(?:[^'\\]|\\.)*'|\S*))",
                                      std::regex::icase);
  if (is_postgres_keyword_string(url)) return std::regex_replace(url, in_keywords, "$1***");
  std::string redacted = std::regex_replace(url, in_query, "$1***");
  const auto scheme_end = redacted.find("://");
  if (scheme_end == std::string::npos) return redacted;
  const auto authority_end = redacted.find_first_of("/?", scheme_end + 3);
  const auto at = redacted.rfind('@', authority_end);
  if (at == std::string::npos || at < scheme_end + 3) return redacted;
  const auto colon = redacted.find(':', scheme_end + 3);
  if (colon == std::string::npos || colon > at) return redacted;
  return redacted.substr(0, colon + 1) + "***" + redacted.substr(at);
}

std::unique_ptr<store> open_store(const std::string& requested, store_access access) {
  const std::string url = requested.empty() ? default_database_url() : requested;
  if (starts_with(url, "postgresql://") || starts_with(url, "postgres://") ||
      is_postgres_keyword_string(url)) {
    return detail::make_sql_store(detail::open_postgres(url), redact_url(url), access);
  }
  std::filesystem::path path;
  if (starts_with(url, "sqlite://")) {
    path = url.substr(std::string_view("sqlite://").size());
  } else if (url.find("://") != std::string::npos) {
    throw usage_error(
        fmt::format("unsupported history database URL '{}' (expected postgresql://..., "
                    "sqlite:///path or a file path)",
                    redact_url(url)));
  } else {
    path = url;
  }
  if (path.empty()) throw usage_error(fmt::format("history database URL '{}' names no file", url));
  if (access == store_access::read_only) {
    // A command that reads must not create what it reads: a mistyped path would be an empty history that
    // passes every check.
    std::error_code ignored;
    if (!std::filesystem::exists(path, ignored)) {
      throw usage_error(
          fmt::format("no history database at {} (nothing to read: `kbench run --db` or `kbench history add` "
                      "creates one)",
                      path.string()));
    }
  } else if (url == default_database_path().string() && path.has_parent_path()) {
    // Only the default location is created; a mistyped explicit directory should fail, not appear.
    std::error_code ignored;
    std::filesystem::create_directories(path.parent_path(), ignored);
  }
  return detail::make_sql_store(detail::open_sqlite(path, access == store_access::read_only), path.string(),
                                access);
}

}  // namespace kbench::history
