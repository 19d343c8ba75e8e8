// The torch baseline's setting (suite/baseline_setting.hpp, baseline_tuning.hpp): the thread counts tried,
// the config a binding reads, and the JSON the setting travels in from the parent into the records.

#include <kbench/suite/baseline_tuning.hpp>
#include <kbench/suite/shape_result.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace kbench::suite {
namespace {

TEST(BaselineSetting, TriesOneThreadPowersOfTwoAndEveryCore) {
  EXPECT_EQ(baseline_thread_counts(1), (std::vector<std::int64_t>{1}));
  EXPECT_EQ(baseline_thread_counts(2), (std::vector<std::int64_t>{1, 2}));
  EXPECT_EQ(baseline_thread_counts(6), (std::vector<std::int64_t>{1, 2, 4, 6}));
  EXPECT_EQ(baseline_thread_counts(8), (std::vector<std::int64_t>{1, 2, 4, 8}));
  EXPECT_EQ(baseline_thread_counts(0), (std::vector<std::int64_t>{1}));
}

TEST(BaselineSetting, ABindingReadsItsThreadCountFromItsConfig) {
  EXPECT_EQ(baseline_threads({}), 0);  // libtorch's own count stays
  EXPECT_EQ(baseline_threads({{"threads", 3}}), 3);
  EXPECT_EQ(baseline_threads({{"threads", 0}}), 1);  // never below one
  baseline_setting s;
  EXPECT_TRUE(s.binding_config().empty());
  EXPECT_EQ(s.describe(), "libtorch's defaults");
  s.threads = 2;
  s.spin = 300000;
  EXPECT_EQ(s.binding_config(), (config{{"threads", 2}}));
  EXPECT_EQ(s.environment(), "GOMP_SPINCOUNT=300000");
  EXPECT_EQ(s.describe(), "2 threads, spin 300000");
}

TEST(BaselineSetting, TriesBothSpinCountsUnlessTheUserSetOne) {
  const char* saved = std::getenv("GOMP_SPINCOUNT");
  const std::string kept = saved != nullptr ? saved : "";
  ::unsetenv("GOMP_SPINCOUNT");
  EXPECT_EQ(baseline_spin_counts(), (std::vector<std::int64_t>{10000, 300000}));
  ::setenv("GOMP_SPINCOUNT", "5000", 1);
  EXPECT_EQ(baseline_spin_counts(), (std::vector<std::int64_t>{5000}));
  if (saved != nullptr) {
    ::setenv("GOMP_SPINCOUNT", kept.c_str(), 1);
  } else {
    ::unsetenv("GOMP_SPINCOUNT");
  }
}

TEST(BaselineSetting, TravelsWithTheShapeResult) {
  shape_result r;
  r.kernel = "exp";
  r.shape = "[1024]";
  baseline_setting s;
  s.threads = 1;
  s.spin = 10000;
  s.median_ms = 0.0009;
  s.source = "tuned";
  s.candidates = {{1, 10000, true, 0.0009, 0.01, ""}, {2, 10000, false, 0, 0, "wrong result"}};
  r.baseline = s;
  const auto back = nlohmann::json(r).get<shape_result>();
  ASSERT_TRUE(back.baseline);
  EXPECT_EQ(back.baseline->threads, 1);
  EXPECT_EQ(back.baseline->spin, 10000);
  EXPECT_EQ(back.baseline->source, "tuned");
  ASSERT_EQ(back.baseline->candidates.size(), 2U);
  EXPECT_FALSE(back.baseline->candidates[1].ok);
  EXPECT_EQ(back.baseline->candidates[1].message, "wrong result");
  EXPECT_FALSE(nlohmann::json(shape_result{}).get<shape_result>().baseline);
}

}  // namespace
}  // namespace kbench::suite
