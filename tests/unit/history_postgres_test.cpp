// The PostgreSQL history store against a real server: the same round trip as SQLite. The server's URL comes
// from KBENCH_TEST_PG_URL (scripts/start-postgres.sh starts a throwaway one and prints it); unset: skipped.

#include "unit/history_round_trip.hpp"

#include <kbench/error.hpp>

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <regex>

namespace kbench::test {
namespace {

/// A fresh database on the test server for one test, dropped afterwards; its URL. Created with psql (the
/// server's client, installed beside it), since the tests link only kbench_core.
class fresh_database {
 public:
  explicit fresh_database(const std::string& name) {
    const char* url = std::getenv("KBENCH_TEST_PG_URL");
    if (url == nullptr || *url == '\0') return;
    m_admin = url;
    m_name = "kbench_test_" + name + "_" + std::to_string(getpid());
    admin("DROP DATABASE IF EXISTS " + m_name);
    admin("CREATE DATABASE " + m_name);
    // Same server and user, another database: replace the path of the URL.
    const auto slash = m_admin.find('/', m_admin.find("://") + 3);
    const auto query = m_admin.find('?');
    m_url =
        m_admin.substr(0, slash) + "/" + m_name + (query == std::string::npos ? "" : m_admin.substr(query));
  }
  fresh_database(const fresh_database&) = delete;
  fresh_database& operator=(const fresh_database&) = delete;
  ~fresh_database() {
    if (!m_name.empty()) admin("DROP DATABASE IF EXISTS " + m_name);
  }
  [[nodiscard]] const std::string& url() const { return m_url; }

 private:
  void admin(const std::string& sql) {
    const std::string command = "psql -X -q -v ON_ERROR_STOP=1 -d '" + m_admin + "' -c '" + sql + "' 2>&1";
    FILE* pipe = popen(command.c_str(), "r");
    ASSERT_NE(pipe, nullptr);
    std::string output;
    char chunk[512];
    while (std::fgets(chunk, sizeof(chunk), pipe) != nullptr) output += chunk;
    const int status = pclose(pipe);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << command << "\n" << output;
  }

  std::string m_admin, m_name, m_url;
};

#define KBENCH_NEED_POSTGRES()                                                                           \
  if (std::getenv("KBENCH_TEST_PG_URL") == nullptr || *std::getenv("KBENCH_TEST_PG_URL") == '\0') {      \
    GTEST_SKIP() << "KBENCH_TEST_PG_URL is unset: run eval \"$(bash scripts/start-postgres.sh)\" first"; \
  }

TEST(HistoryPostgres, RoundTripOfRealRecords) {
  KBENCH_NEED_POSTGRES();
  fresh_database db("round_trip");
  check_round_trip(db.url());
}

TEST(HistoryPostgres, AFailedAddLeavesNothingBehind) {
  KBENCH_NEED_POSTGRES();
  fresh_database db("atomic");
  check_add_is_atomic(db.url());
}

TEST(HistoryPostgres, EightConcurrentWritersAllLand) {
  KBENCH_NEED_POSTGRES();
  fresh_database db("concurrent");
  check_concurrent_writers(db.url(), 8);
}

TEST(HistoryPostgres, AKeyValueConnectionStringReachesTheServerAndCreatesNoFile) {
  KBENCH_NEED_POSTGRES();
  fresh_database db("keywords");
  // The same database as libpq keywords: user, host, port and database taken from the test server's URL.
  std::smatch part;
  const std::string& url = db.url();
  ASSERT_TRUE(std::regex_search(url, part, std::regex(R"(://(?:([^:@/]+)@)?([^:/?]+)(?::(\d+))?/([^?]+))")))
      << url;
  std::string keywords = "host=" + part[2].str() + " dbname=" + part[4].str();
  if (part[1].matched) keywords += " user=" + part[1].str();
  if (part[3].matched) keywords += " port=" + part[3].str();
  check_round_trip(keywords);
  EXPECT_FALSE(std::filesystem::exists(keywords)) << "taken as a SQLite path";
  try {
    (void)history::open_store("hots=nowhere password=hunter2");
    FAIL() << "a misspelt keyword was accepted";
  } catch (const usage_error& e) {
    EXPECT_NE(std::string(e.what()).find("hots"), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find("hunter2"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists("hots=nowhere password=hunter2"));
}

TEST(HistoryPostgres, AnUnreachableServerIsAUsageError) {
  // No server listens on port 1; libpq fails at once with "connection refused".
  try {
    (void)history::open_store("postgresql://kbench:secret@127.0.0.1:1/kbench");
    FAIL() << "expected usage_error";
  } catch (const usage_error& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.rfind(
                  "cannot connect to the history database postgresql://kbench:***@127.0.0.1:1/kbench: ", 0),
              0u)
        << message;
    EXPECT_EQ(message.find("secret"), std::string::npos) << "the password is not printed";
  }
}

}  // namespace
}  // namespace kbench::test
