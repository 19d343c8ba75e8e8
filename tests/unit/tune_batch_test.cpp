// Batched asks (several configs proposed before their results come back, as the tuner does when it compiles
// a batch in parallel): every strategy still proposes valid configs, never twice, and reaches the whole
// space.

#include <kbench/tune/space.hpp>
#include <kbench/tune/strategy.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <set>

namespace kbench::tune {
namespace {

enumerated_space batch_space() {
  space s;
  s.add(parameter::power_of_two("X", 1, 64))
      .add(parameter::integers("Y", {1, 2, 3, 4, 5}))
      .add(parameter::boolean("Z"));
  s.add_constraint("X * Y <= 160",
                   [](const config& c, const device_info&) { return c.at("X") * c.at("Y") <= 160; });
  return s.enumerate(device_info{});
}

double cost(const config& c) {
  return 1.0 + std::abs(std::log2(static_cast<double>(c.at("X"))) - 3.0) +
         std::abs(static_cast<double>(c.at("Y")) - 2) + 0.5 * static_cast<double>(c.at("Z"));
}

class TuneBatch : public ::testing::TestWithParam<std::string> {};

TEST_P(TuneBatch, BatchesOfThreeCoverTheSpaceWithoutRepeats) {
  const enumerated_space s = batch_space();
  auto strategy = make_strategy(GetParam(), s, {5, 0});
  std::set<config_id> seen;
  for (;;) {
    std::vector<config_id> batch;
    for (int k = 0; k < 3; ++k) {
      const auto id = strategy->ask();
      if (!id) break;
      EXPECT_TRUE(seen.insert(*id).second) << "config " << *id << " proposed twice";
      batch.push_back(*id);
    }
    if (batch.empty()) break;
    for (std::size_t k = 0; k < batch.size(); ++k) {
      evaluation e{batch[k], eval_status::ok, cost(s.to_config(batch[k]))};
      if (batch[k] % 7 == 0) e = {batch[k], eval_status::runtime_error};  // some fail
      strategy->tell(e);
    }
  }
  EXPECT_EQ(seen.size(), s.size());
}

INSTANTIATE_TEST_SUITE_P(All, TuneBatch, ::testing::ValuesIn(strategy_names()),
                         [](const ::testing::TestParamInfo<std::string>& param) { return param.param; });

}  // namespace
}  // namespace kbench::tune
