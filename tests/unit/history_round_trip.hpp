#pragma once
// The round trip both databases must pass: real v3 records in, the same series, medians and samples out.

#include "unit/history_test_data.hpp"

#include <kbench/history/records.hpp>
#include <kbench/history/store.hpp>
#include <kbench/stats.hpp>

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <map>

namespace kbench::test {

/// Stores three runs in the empty database `url` and checks what comes back.
inline void check_round_trip(const std::string& url) {
  using namespace kbench::history;
  const nlohmann::json first = sample_run(1764500000, 1.0, 10);
  const nlohmann::json second = sample_run(1764586400, 1.1, 20);
  nlohmann::json both = first;
  for (const auto& r : second) both.push_back(r);
  {
    auto db = open_store(url);
    const add_summary added = db->add(runs_from_records(both, "abc123"));
    EXPECT_EQ(added.runs_added, 2u);
    EXPECT_EQ(added.runs_skipped, 0u);
    EXPECT_EQ(added.points_added, both.size());
  }
  auto db = open_store(url);  // reopened: the data is on disk / on the server
  const add_summary again = db->add(runs_from_records(first, "abc123"));
  EXPECT_EQ(again.runs_added, 0u) << "a run already stored is skipped";
  EXPECT_EQ(again.runs_skipped, 1u);
  db->add(runs_from_records(sample_run(1764672800, 1.2, 30), ""));

  const auto all = db->series({.kernels = {}, .with_samples = true});
  // 2 shapes x (kbench: latency, throughput, accuracy, speedup + torch: latency, throughput, accuracy)
  ASSERT_EQ(all.size(), 14u);
  std::map<std::pair<series_key, std::int64_t>, std::vector<double>> expected;
  for (const auto& r : both) expected[{key_of(r), r["timestamp"].get<std::int64_t>()}] = values_of(r);
  for (const auto& s : all) {
    ASSERT_EQ(s.points.size(), 3u) << s.key.kernel << " " << s.key.shape << " " << s.key.metric;
    EXPECT_EQ(s.key.runner_name, s.key.implementation == "torch" ? "torch" : "cpu");
    EXPECT_EQ(s.key.runner_type, "Test CPU");
    EXPECT_EQ(s.key.kernel, "exp");
    EXPECT_EQ(s.points[0].run.timestamp, 1764500000);  // oldest first
    EXPECT_EQ(s.points[1].run.timestamp, 1764586400);
    EXPECT_EQ(s.points[2].run.timestamp, 1764672800);
    EXPECT_EQ(s.points[0].run.commit, "abc123");
    EXPECT_EQ(s.points[2].run.commit, "");
    EXPECT_FALSE(s.points[0].run.host.empty());
    for (std::size_t i = 0; i < 2; ++i) {
      const auto& want = expected.at({s.key, s.points[i].run.timestamp});
      EXPECT_EQ(s.points[i].samples, want) << "samples come back bit for bit";
      EXPECT_EQ(s.points[i].median, quantile(want, 0.5));
    }
  }
  const auto latency = db->series({.kernels = {"exp"}, .with_samples = false});
  EXPECT_EQ(latency.size(), 14u);
  EXPECT_TRUE(latency[0].points[0].samples.empty());
  EXPECT_TRUE(db->series({.kernels = {"softmax"}, .with_samples = false}).empty());
}

/// A failed add leaves nothing behind: a run whose points fail to store rolls back with the runs before it.
inline void check_add_is_atomic(const std::string& url) {
  using namespace kbench::history;
  auto db = open_store(url);
  std::vector<run_records> runs = runs_from_records(sample_run(1764500000, 1.0), "good");
  std::vector<run_records> bad = runs_from_records(sample_run(1764586400, 1.0), "bad");
  // A NaN median cannot be stored (NOT NULL / not a number): the second run fails half way.
  bad[0].points[3].median = std::nan("");
  runs.push_back(bad[0]);
  EXPECT_ANY_THROW(db->add(runs));
  EXPECT_TRUE(db->series().empty()) << "the first run was rolled back too";
}

/// `writers` processes open the fresh database `url` at once (so the schema is created concurrently too) and
/// each adds its own run of the same series, as nightly shards do: every add must land.
inline void check_concurrent_writers(const std::string& url, int writers) {
  using namespace kbench::history;
  std::vector<pid_t> children;
  for (int w = 0; w < writers; ++w) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      int status = 0;
      try {
        auto db = open_store(url);
        const add_summary added = db->add(runs_from_records(sample_run(1764500000 + w, 1.0 + w, 5), "shard"));
        status = added.runs_added == 1 ? 0 : 3;
      } catch (const std::exception& e) {
        std::fprintf(stderr, "writer %d: %s\n", w, e.what());
        status = 1;
      }
      std::_Exit(status);
    }
    children.push_back(pid);
  }
  int failed = 0;
  for (const pid_t pid : children) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) ++failed;
  }
  EXPECT_EQ(failed, 0) << "of " << writers << " concurrent writers";
  const auto all = open_store(url, store_access::read_only)->series();
  ASSERT_FALSE(all.empty());
  for (const auto& s : all) EXPECT_EQ(s.points.size(), static_cast<std::size_t>(writers)) << s.key.metric;
}

}  // namespace kbench::test
