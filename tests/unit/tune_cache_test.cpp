// The tuning cache: keys, round trips, corrupt files, concurrent writers, the miss description.

#include "support/scratch_dir.hpp"

#include <kbench/tune/cache.hpp>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <thread>

namespace kbench::tune {
namespace {

namespace fs = std::filesystem;

fs::path fresh_dir(const std::string& name) {
  return test::scratch_dir("cache-test-" + name);
}

cache_key sample_key() {
  cache_key key;
  key.kernel = "softmax_two_pass";
  key.shape = "[1024,256]";
  key.dtype = "float32";
  key.backend = "opencl";
  key.device = "pthread-skylake";
  key.driver = "PoCL 3.1";
  key.source_hash = "abc123";
  key.space_hash = "0011223344556677";
  key.kbench_version = "0.1.0";
  return key;
}

cache_entry sample_entry(const cache_key& key, int variant = 0) {
  cache_entry entry;
  entry.key = key;
  entry.strategy = "bayes_opt";
  entry.seed = 7;
  entry.complete = true;
  entry.best = config{{"WG", 64}, {"VEC", 4}};
  entry.best_time_ms = 0.125;
  entry.tuning_s = 12.5;
  entry.log.push_back({{{"WG", 64}, {"VEC", 4}}, eval_status::ok, 0.125, "", 0.121});
  entry.log.push_back(
      {{{"WG", 1024}, {"VEC", 8}}, eval_status::compile_error, 0, "CL_BUILD_PROGRAM_FAILURE"});
  entry.log.push_back({{{"WG", 32}, {"VEC", 1}}, eval_status::timeout, 0, "killed after 60 s"});
  for (int i = 0; i < variant; ++i)
    entry.log.push_back({{{"WG", 16}, {"VEC", i}}, eval_status::ok, 1.0 + i, ""});
  return entry;
}

TEST(TuneCache, EveryKeyFieldChangesTheDigest) {
  const cache_key base = sample_key();
  std::set<std::string> digests{base.digest()};
  const std::size_t field_count = base.fields().size();
  ASSERT_EQ(field_count, 9u);
  for (std::size_t f = 0; f < field_count; ++f) {
    cache_key changed = base;
    std::string* fields[] = {&changed.kernel,      &changed.shape,      &changed.dtype,
                             &changed.backend,     &changed.device,     &changed.driver,
                             &changed.source_hash, &changed.space_hash, &changed.kbench_version};
    *fields[f] += "x";
    EXPECT_NE(changed.digest(), base.digest()) << "field " << base.fields()[f].first;
    digests.insert(changed.digest());
  }
  EXPECT_EQ(digests.size(), field_count + 1);       // all distinct
  EXPECT_EQ(base.digest(), sample_key().digest());  // stable
}

TEST(TuneCache, RoundTripKeepsEveryField) {
  const tuning_cache cache(fresh_dir("roundtrip"));
  const cache_entry written = sample_entry(sample_key());
  cache.write(written);
  const cache_lookup found = cache.read(sample_key());
  EXPECT_TRUE(found.warnings.empty());
  ASSERT_TRUE(found.entry);
  EXPECT_EQ(found.entry->key, written.key);
  EXPECT_EQ(found.entry->best, written.best);
  EXPECT_DOUBLE_EQ(found.entry->best_time_ms, 0.125);
  ASSERT_EQ(found.entry->log.size(), 3u);
  EXPECT_DOUBLE_EQ(found.entry->log[0].time_ms, 0.125);
  EXPECT_DOUBLE_EQ(found.entry->log[0].retime_ms, 0.121);
  EXPECT_DOUBLE_EQ(found.entry->log[1].retime_ms, 0) << "never re-timed";
  EXPECT_EQ(found.entry->log[1].status, eval_status::compile_error);
  EXPECT_EQ(found.entry->log[1].message, "CL_BUILD_PROGRAM_FAILURE");
  EXPECT_EQ(found.entry->log[2].status, eval_status::timeout);
  EXPECT_FALSE(found.entry->updated_at.empty());

  cache_key other = sample_key();
  other.device = "another device";
  EXPECT_FALSE(cache.read(other).entry);  // a plain miss
  EXPECT_TRUE(cache.read(other).warnings.empty());
}

TEST(TuneCache, CorruptOrTruncatedEntryIsReportedMovedAsideAndRetuned) {
  const fs::path dir = fresh_dir("corrupt");
  const tuning_cache cache(dir);
  cache.write(sample_entry(sample_key()));
  const fs::path path = cache.path_of(sample_key());
  std::string text;
  {
    std::ifstream in(path);
    text.assign(std::istreambuf_iterator<char>(in), {});
  }
  {
    std::ofstream out(path, std::ios::trunc);
    out << text.substr(0, text.size() / 2);  // truncated mid-write by a crash of an older tool
  }
  const cache_lookup found = cache.read(sample_key());
  EXPECT_FALSE(found.entry);
  ASSERT_EQ(found.warnings.size(), 1u);
  EXPECT_NE(found.warnings[0].find("unreadable"), std::string::npos) << found.warnings[0];
  EXPECT_NE(found.warnings[0].find(path.string()), std::string::npos) << found.warnings[0];
  EXPECT_FALSE(fs::exists(path));
  std::size_t aside = 0;
  for (const auto& e : fs::directory_iterator(path.parent_path())) {
    if (e.path().filename().string().find(".corrupt-") != std::string::npos) ++aside;
  }
  EXPECT_EQ(aside, 1u);  // the broken data is kept for a person, not overwritten

  cache.write(sample_entry(sample_key()));  // re-tuned
  EXPECT_TRUE(cache.read(sample_key()).entry);
}

TEST(TuneCache, NotAnEntryIsReportedNotFatal) {
  const tuning_cache cache(fresh_dir("wrongshape"));
  const fs::path path = cache.path_of(sample_key());
  fs::create_directories(path.parent_path());
  std::ofstream(path) << R"({"format": "kbench-tuning-cache/1", "key": 3})";
  const cache_lookup found = cache.read(sample_key());
  EXPECT_FALSE(found.entry);
  ASSERT_EQ(found.warnings.size(), 1u);
  EXPECT_NE(found.warnings[0].find("not a tuning-cache entry"), std::string::npos) << found.warnings[0];
}

TEST(TuneCache, ConcurrentWriterProcessesNeverLeaveATornEntry) {
  const fs::path dir = fresh_dir("concurrent");
  const cache_key key = sample_key();
  const tuning_cache cache(dir);
  cache.write(sample_entry(key));
  // Two writer processes (what two `kbench run` tuning into one directory are) rewrite the same entry with
  // logs of different lengths while this process reads it: every read must parse.
  std::vector<pid_t> writers;
  for (int w = 0; w < 2; ++w) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      int status = 0;
      try {
        for (int i = 0; i < 150; ++i) cache.write(sample_entry(key, (i * 7 + w) % 40));
      } catch (...) {
        status = 1;
      }
      ::_exit(status);
    }
    writers.push_back(pid);
  }
  std::size_t reads = 0, torn = 0;
  for (bool running = true; running;) {
    const cache_lookup found = cache.read(key);
    ++reads;
    if (!found.entry || !found.warnings.empty()) ++torn;
    running = false;
    for (pid_t pid : writers) {
      if (::waitpid(pid, nullptr, WNOHANG) == 0) running = true;
    }
  }
  for (pid_t pid : writers) ::waitpid(pid, nullptr, 0);
  EXPECT_GT(reads, 0u);
  EXPECT_EQ(torn, 0u);
  EXPECT_TRUE(cache.read(key).entry);
  for (const auto& e : fs::directory_iterator(cache.path_of(key).parent_path())) {
    EXPECT_EQ(e.path().extension(), ".json") << "a temporary file was left behind: " << e.path();
  }
}

TEST(TuneCache, MissDescriptionDiffsTheNearestEntries) {
  const tuning_cache cache(fresh_dir("miss"));
  cache_key near = sample_key();
  near.driver = "PoCL 3.0";  // one field off
  cache.write(sample_entry(near));
  cache_key far = sample_key();
  far.driver = "PoCL 1.0";
  far.device = "other";
  far.shape = "[8,8]";
  cache.write(sample_entry(far));
  cache_key unrelated = sample_key();
  unrelated.kernel = "exp";
  cache.write(sample_entry(unrelated));

  const std::string text = cache.describe_miss(sample_key());
  EXPECT_NE(text.find("no tuning-cache entry"), std::string::npos) << text;
  EXPECT_NE(text.find("softmax_two_pass"), std::string::npos) << text;
  EXPECT_NE(text.find("driver          PoCL 3.0 -> PoCL 3.1"), std::string::npos) << text;
  EXPECT_NE(text.find("shape           [8,8] -> [1024,256]"), std::string::npos) << text;
  EXPECT_LT(text.find(near.digest()), text.find(far.digest())) << "nearest first:\n" << text;
  EXPECT_EQ(text.find(unrelated.digest()), std::string::npos) << "other kernels are not candidates:\n"
                                                              << text;
  EXPECT_NE(text.find("2 of 2"), std::string::npos) << text;

  const std::string none = tuning_cache(fresh_dir("miss-empty")).describe_miss(sample_key());
  EXPECT_NE(none.find("no cached entry for kernel 'softmax_two_pass' at all"), std::string::npos) << none;
}

TEST(TuneCache, IncompleteCheckpointIsReadButNotACandidate) {
  const tuning_cache cache(fresh_dir("checkpoint"));
  cache_entry checkpoint = sample_entry(sample_key());
  checkpoint.complete = false;
  checkpoint.best.reset();
  cache.write(checkpoint);
  const cache_lookup found = cache.read(sample_key());
  ASSERT_TRUE(found.entry);
  EXPECT_FALSE(found.entry->complete);
  EXPECT_EQ(found.entry->log.size(), 3u);
  EXPECT_TRUE(cache.entries().empty());
}

}  // namespace
}  // namespace kbench::tune
