// The SQLite history store: round trip of real v3 records, atomic adds, and bad databases.

#include "support/scratch_dir.hpp"
#include "unit/history_round_trip.hpp"

#include <kbench/error.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace kbench::test {
namespace {

std::filesystem::path fresh_dir(const std::string& name) {
  return scratch_dir("history-" + name);
}

TEST(HistorySqlite, RoundTripOfRealRecordsThroughAPlainPath) {
  check_round_trip((fresh_dir("plain") / "h.db").string());
}

TEST(HistorySqlite, RoundTripThroughASqliteUrl) {
  check_round_trip("sqlite://" + (fresh_dir("url") / "h.db").string());
}

TEST(HistorySqlite, AFailedAddLeavesNothingBehind) {
  check_add_is_atomic((fresh_dir("atomic") / "h.db").string());
}

TEST(HistorySqlite, AFileThatIsNotADatabaseIsAUsageError) {
  const auto path = fresh_dir("notdb") / "results.json";
  std::ofstream(path) << "[{\"schema_version\": \"v3\"}]\n";
  try {
    (void)history::open_store(path.string());
    FAIL() << "expected usage_error";
  } catch (const usage_error& e) {
    EXPECT_EQ(std::string(e.what()),
              "cannot open the history database " + path.string() + ": file is not a database");
  }
}

TEST(HistorySqlite, AMissingDirectoryIsAUsageError) {
  const auto path = fresh_dir("missing") / "no" / "such" / "h.db";
  EXPECT_THROW((void)history::open_store(path.string()), usage_error);
  EXPECT_FALSE(std::filesystem::exists(path.parent_path())) << "an explicit path's directory is not created";
}

TEST(HistorySqlite, UnknownUrlSchemeIsAUsageError) {
  try {
    (void)history::open_store("mysql://u:secret@host/db");
    FAIL() << "expected usage_error";
  } catch (const usage_error& e) {
    EXPECT_EQ(
        std::string(e.what()),
        "unsupported history database URL 'mysql://u:***@host/db' (expected postgresql://..., sqlite:///path "
        "or a file path)");
  }
}

TEST(HistorySqlite, DefaultUrlComesFromKbenchDb) {
  const char* saved = std::getenv("KBENCH_DB");
  const std::string old = saved != nullptr ? saved : "";
  setenv("KBENCH_DB", "/tmp/elsewhere.db", 1);
  EXPECT_EQ(history::default_database_url(), "/tmp/elsewhere.db");
  unsetenv("KBENCH_DB");
  EXPECT_TRUE(history::default_database_url().ends_with("kbench/history.db"));
  if (saved != nullptr) setenv("KBENCH_DB", old.c_str(), 1);
}

TEST(HistoryUrl, RedactHidesOnlyThePassword) {
  EXPECT_EQ(history::redact_url("postgresql://kb:pw@127.0.0.1:5432/db"),
            "postgresql://kb:***@127.0.0.1:5432/db");
  EXPECT_EQ(history::redact_url("postgresql://kb@127.0.0.1:5432/db"), "postgresql://kb@127.0.0.1:5432/db");
  EXPECT_EQ(history::redact_url("postgresql://127.0.0.1:5432/db"), "postgresql://127.0.0.1:5432/db");
  EXPECT_EQ(history::redact_url("/tmp/h.db"), "/tmp/h.db");
}

TEST(HistoryUrl, RedactHidesPasswordsInTheQueryAndInKeyValueStrings) {
  EXPECT_EQ(history::redact_url("postgresql://kb@h/db?password=s3cret&sslmode=require"),
            "postgresql://kb@h/db?password=***&sslmode=require");
  EXPECT_EQ(history::redact_url("postgres://h/db?sslmode=require&sslpassword=k3y"),
            "postgres://h/db?sslmode=require&sslpassword=***");
  EXPECT_EQ(history::redact_url("postgresql://kb:pw@h/db?password=two"),
            "postgresql://kb:***@h/db?password=***");
  EXPECT_EQ(history::redact_url("host=h dbname=kbench password=s3cret user=kb"),
            "host=h dbname=kbench password=*** user=kb");
  EXPECT_EQ(history::redact_url("host=h password = 'it\\'s secret' user=kb"),
            "host=h password = *** user=kb");
  EXPECT_TRUE(history::is_postgres_keyword_string("host=h dbname=kbench"));
  EXPECT_FALSE(history::is_postgres_keyword_string("/tmp/a=b.db"));
  EXPECT_FALSE(history::is_postgres_keyword_string("sqlite:///tmp/h.db"));
}

TEST(HistorySqlite, FourConcurrentWritersAllLand) {
  const auto dir = test::scratch_dir("sqlite-concurrent");
  check_concurrent_writers("sqlite://" + (dir / "h.db").string(), 4);
}

}  // namespace
}  // namespace kbench::test
