// `kbench compare` on synthetic sample files: faster, slower, same, not enough samples, and the geomean.

#include "unit/history_test_data.hpp"

#include <kbench/history/compare.hpp>

#include <gtest/gtest.h>

namespace kbench::test {
namespace {

using history::change;
using history::compare_records;

nlohmann::json latency(const std::string& kernel, const std::string& shape, const std::vector<double>& values,
                       const std::string& metric = "latency_ms") {
  io::record_context context;
  context.kernel = kernel;
  context.shape = shape;
  context.device.backend = backend_kind::cpu;
  context.device.name = "Test CPU";
  return io::make_record(context, metric, values);
}

const history::series_comparison& find(const history::comparison& c, const std::string& kernel) {
  for (const auto& s : c.series) {
    if (s.kernel == kernel) return s;
  }
  throw std::runtime_error("no series " + kernel);
}

TEST(CompareRecords, FasterSlowerSameAndNotEnoughSamples) {
  nlohmann::json base = nlohmann::json::array();
  nlohmann::json newer = nlohmann::json::array();
  base.push_back(latency("faster", "[1]", lognormal_values(1, 20, 1.0, 0.02)));
  newer.push_back(latency("faster", "[1]", lognormal_values(2, 20, 0.8, 0.02)));
  base.push_back(latency("slower", "[1]", lognormal_values(3, 20, 1.0, 0.02)));
  newer.push_back(latency("slower", "[1]", lognormal_values(4, 30, 1.1, 0.02)));
  base.push_back(latency("same", "[1]", lognormal_values(5, 20, 1.0, 0.02)));
  newer.push_back(latency("same", "[1]", lognormal_values(7, 20, 1.0, 0.02)));
  base.push_back(latency("few", "[1]", {1.0, 1.01, 0.99}));
  newer.push_back(latency("few", "[1]", {2.0, 2.01, 1.99}));
  const auto c = compare_records(base, newer);
  ASSERT_EQ(c.series.size(), 4u);
  EXPECT_EQ(find(c, "faster").verdict, change::faster);
  EXPECT_NEAR(find(c, "faster").ratio, 0.8, 0.03);
  EXPECT_LT(find(c, "faster").test.p_value, 1e-6);
  EXPECT_EQ(find(c, "slower").verdict, change::slower);
  EXPECT_EQ(find(c, "slower").test.method, history::mann_whitney_method::normal);  // 30 samples
  EXPECT_EQ(find(c, "same").verdict, change::same);
  EXPECT_GT(find(c, "same").test.p_value, 0.05);
  EXPECT_EQ(find(c, "few").verdict, change::not_enough_samples);
  EXPECT_NEAR(find(c, "few").ratio, 2.0, 1e-12);
  EXPECT_EQ(to_string(change::not_enough_samples), "not enough samples");
}

TEST(CompareRecords, ASignificantChangeBelowTheMinimumEffectIsTheSame) {
  // 1% apart with a spread of 0.1%: the test tells them apart at any alpha, the effect is below 2%.
  nlohmann::json base = nlohmann::json::array({latency("k", "[1]", lognormal_values(1, 200, 1.0, 0.001))});
  nlohmann::json newer = nlohmann::json::array({latency("k", "[1]", lognormal_values(2, 200, 0.99, 0.001))});
  const auto by_default = compare_records(base, newer);
  ASSERT_EQ(by_default.series.size(), 1u);
  EXPECT_LT(by_default.series[0].test.p_value, 1e-6);
  EXPECT_EQ(by_default.series[0].verdict, change::same);
  EXPECT_EQ(compare_records(base, newer, 0.05, 0.005).series[0].verdict, change::faster);
}

TEST(CompareRecords, GeomeanCountsOnlySeriesPresentInBothFiles) {
  nlohmann::json base = nlohmann::json::array();
  nlohmann::json newer = nlohmann::json::array();
  base.push_back(latency("a", "[1]", {1, 1, 1, 1, 1}));
  newer.push_back(latency("a", "[1]", {2, 2, 2, 2, 2}));
  base.push_back(latency("b", "[1]", {1, 1, 1, 1, 1}));
  newer.push_back(latency("b", "[1]", {0.5, 0.5, 0.5, 0.5, 0.5}));
  base.push_back(latency("b", "[1]", {4, 4, 4, 4, 4}, "device_ms"));
  newer.push_back(latency("b", "[1]", {5, 5, 5, 5, 5}, "device_ms"));
  base.push_back(latency("gone", "[1]", {1, 1, 1}));
  newer.push_back(latency("new", "[1]", {100, 100, 100}));
  newer.push_back(latency("a", "[2]", {100, 100, 100}));
  base.push_back(latency("a", "[1]", {9, 9, 9, 9, 9}, "speedup"));  // not a latency: ignored
  newer.push_back(latency("a", "[1]", {1, 1, 1, 1, 1}, "speedup"));
  const auto c = compare_records(base, newer);
  ASSERT_EQ(c.geomeans.size(), 2u);
  EXPECT_EQ(c.geomeans[0].metric, "device_ms");
  EXPECT_EQ(c.geomeans[0].series, 1u);
  EXPECT_NEAR(c.geomeans[0].ratio, 1.25, 1e-12);
  EXPECT_EQ(c.geomeans[1].metric, "latency_ms");
  EXPECT_EQ(c.geomeans[1].series, 2u);
  EXPECT_NEAR(c.geomeans[1].ratio, 1.0, 1e-12);  // sqrt(2 * 0.5)
  EXPECT_EQ(c.only_in_base, std::vector<std::string>{"gone [1] kbench-cpu latency_ms"});
  EXPECT_EQ(c.only_in_new,
            (std::vector<std::string>{"a [2] kbench-cpu latency_ms", "new [1] kbench-cpu latency_ms"}));
  const auto json = history::to_json(c);
  EXPECT_EQ(json["series"].size(), 3u);
  EXPECT_EQ(json["geomean"][1]["series"], 2);
}

TEST(CompareRecords, ARepeatedKeyKeepsTheLastRecord) {
  nlohmann::json base = nlohmann::json::array({latency("k", "[1]", {1, 1, 1, 1, 1})});
  nlohmann::json newer =
      nlohmann::json::array({latency("k", "[1]", {9, 9, 9, 9, 9}), latency("k", "[1]", {1, 1, 1, 1, 1})});
  const auto c = compare_records(base, newer);
  ASSERT_EQ(c.series.size(), 1u);
  EXPECT_EQ(c.series[0].ratio, 1.0);
  EXPECT_EQ(c.series[0].verdict, change::same);
}

}  // namespace
}  // namespace kbench::test
