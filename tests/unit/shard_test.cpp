// Unit tests of --shard: parsing "i/N", and shards that partition synthetic plans of several sizes evenly.

#include <kbench/error.hpp>
#include <kbench/suite/shard.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace kbench::suite {
namespace {

using item_key = std::pair<std::string, std::size_t>;

item_key key(const suite_item& item) {
  return {item.kernel->name, item.shape_index};
}

/// A plan like plan_suite's: kernels in name order, each with its shapes in order. The deque keeps the
/// definitions' addresses stable for the items that point at them.
struct synthetic_plan {
  std::deque<kernel_definition> kernels;
  std::vector<suite_item> items;

  explicit synthetic_plan(const std::vector<std::size_t>& shapes_per_kernel) {
    for (std::size_t k = 0; k < shapes_per_kernel.size(); ++k) {
      kernel_definition& def = kernels.emplace_back();
      def.name = "k" + std::to_string(10 + k);  // two digits: name order = creation order
      for (std::size_t s = 0; s < shapes_per_kernel[k]; ++s) {
        def.shapes.push_back({std::int64_t{1024} << s});
        items.push_back({&def, s});
      }
    }
  }
};

TEST(Shard, ParsesOneBasedIndexOverCount) {
  for (const auto& [text, index, count] : std::vector<std::tuple<std::string, std::size_t, std::size_t>>{
           {"1/1", 1, 1}, {"2/4", 2, 4}, {"4/4", 4, 4}, {"10/12", 10, 12}, {"007/8", 7, 8}}) {
    const shard_spec spec = parse_shard(text);
    EXPECT_EQ(spec.index, index) << text;
    EXPECT_EQ(spec.count, count) << text;
  }
}

TEST(Shard, RefusesAnythingButIOverNWithOneLessOrEqualILessOrEqualN) {
  // Empty parts, zero, i > N, signs, spaces, non-digits, extra parts, overflow.
  std::vector<std::string> malformed{"0/4", "5/4", "1/0", "0/0", "1", "4", "/4", "1/", "/", "-1/4", "1/-4"};
  malformed.insert(malformed.end(),
                   {"+1/4", "a/b", "1/4/2", " 1/4", "1/4 ", "1 /4", "1.0/4", "1/4.5", "1:4"});
  malformed.insert(malformed.end(), {"", "99999999999999999999999/1"});
  for (const std::string& text : malformed) {
    try {
      (void)parse_shard(text);
      ADD_FAILURE() << "accepted '" << text << "'";
    } catch (const usage_error& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find("'" + text + "'"), std::string::npos) << message;
      EXPECT_NE(message.find("i/N"), std::string::npos) << message;
    }
  }
}

TEST(Shard, SelectRefusesAnOutOfRangeSpec) {
  const synthetic_plan plan({3});
  EXPECT_THROW((void)select_shard(plan.items, {0, 2}), usage_error);
  EXPECT_THROW((void)select_shard(plan.items, {3, 2}), usage_error);
  EXPECT_THROW((void)select_shard(plan.items, {1, 0}), usage_error);
}

TEST(Shard, ShardsPartitionThePlanEvenlyInPlanOrder) {
  const std::vector<std::vector<std::size_t>> layouts{
      {}, {1}, {2}, {5}, {3, 3}, {6, 5, 3, 8}, {6, 6, 6, 6, 6, 6, 6, 6, 6, 5, 3, 8}};
  for (const auto& layout : layouts) {
    const synthetic_plan plan(layout);
    std::map<item_key, std::size_t> plan_position;
    for (std::size_t k = 0; k < plan.items.size(); ++k) plan_position[key(plan.items[k])] = k;
    for (std::size_t n : {1, 2, 3, 4, 7, 13, 100}) {
      SCOPED_TRACE("plan of " + std::to_string(plan.items.size()) + " items, N = " + std::to_string(n));
      std::map<item_key, int> times_selected;
      std::size_t smallest = plan.items.size() + 1, largest = 0;
      for (std::size_t i = 1; i <= n; ++i) {
        const auto shard = select_shard(plan.items, {i, n});
        smallest = std::min(smallest, shard.size());
        largest = std::max(largest, shard.size());
        for (std::size_t j = 0; j < shard.size(); ++j) {
          ++times_selected[key(shard[j])];
          if (j > 0) {
            EXPECT_LT(plan_position.at(key(shard[j - 1])), plan_position.at(key(shard[j])));
          }
        }
        // Deterministic: the same spec selects the same items.
        const auto again = select_shard(plan.items, {i, n});
        ASSERT_EQ(again.size(), shard.size());
        for (std::size_t j = 0; j < shard.size(); ++j) EXPECT_EQ(key(again[j]), key(shard[j]));
      }
      EXPECT_LE(largest - smallest, 1U);
      EXPECT_EQ(times_selected.size(), plan.items.size());  // every item, and nothing else
      for (const auto& [item, times] : times_selected) {
        EXPECT_EQ(times, 1) << item.first << " shape " << item.second;
      }
    }
  }
}

TEST(Shard, OneOfOneIsTheWholePlan) {
  const synthetic_plan plan({6, 5, 3});
  const auto shard = select_shard(plan.items, parse_shard("1/1"));
  ASSERT_EQ(shard.size(), plan.items.size());
  for (std::size_t k = 0; k < shard.size(); ++k) EXPECT_EQ(key(shard[k]), key(plan.items[k]));
}

TEST(Shard, RoundRobinSendsAKernelsConsecutiveShapesToDifferentShards) {
  // Plan: k10 shapes 0..3, k11 shapes 0..3. Shard 2 of 3 holds plan positions 1, 4, 7.
  const synthetic_plan plan({4, 4});
  const auto shard = select_shard(plan.items, {2, 3});
  const std::vector<item_key> expected{{"k10", 1}, {"k11", 0}, {"k11", 3}};
  ASSERT_EQ(shard.size(), expected.size());
  for (std::size_t j = 0; j < shard.size(); ++j) EXPECT_EQ(key(shard[j]), expected[j]);
  // With 4 shards, the 4 shapes of k10 (and of k11) land on 4 different runners.
  for (const char* kernel : {"k10", "k11"}) {
    for (std::size_t i = 1; i <= 4; ++i) {
      const auto part = select_shard(plan.items, {i, 4});
      EXPECT_EQ(std::count_if(part.begin(), part.end(),
                              [&](const suite_item& it) { return it.kernel->name == kernel; }),
                1)
          << kernel << " in shard " << i;
    }
  }
}

TEST(Shard, AShardBeyondTheEndOfAShortPlanIsEmpty) {
  const synthetic_plan plan({2});
  EXPECT_EQ(select_shard(plan.items, {1, 4}).size(), 1U);
  EXPECT_EQ(select_shard(plan.items, {2, 4}).size(), 1U);
  EXPECT_TRUE(select_shard(plan.items, {3, 4}).empty());
  EXPECT_TRUE(select_shard(plan.items, {4, 4}).empty());
}

}  // namespace
}  // namespace kbench::suite
