// Tuning spaces: parameter kinds, constraints against device limits, enumeration, neighbourhoods, the hash.

#include <kbench/tune/space.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

namespace kbench::tune {
namespace {

device_info device_with_max_wg(std::size_t max_wg) {
  device_info d;
  d.name = "test device";
  d.max_work_group_size = max_wg;
  return d;
}

// BLOCK_X in 8..256, BLOCK_Y in 1..16 (powers of two), a boolean and an enum; work-group size <= the
// device's.
space block_space() {
  space s;
  s.add(parameter::power_of_two("BLOCK_X", 8, 256).block_size())
      .add(parameter::power_of_two("BLOCK_Y", 1, 16).block_size())
      .add(parameter::boolean("USE_LOCAL"))
      .add(parameter::enumeration("LAYOUT", {"row", "col", "tiled"}))
      .add_constraint("work-group size <= device maximum",
                      [](const config& c, const device_info& d) {
                        return c.at("BLOCK_X") * c.at("BLOCK_Y") <=
                               static_cast<std::int64_t>(d.max_work_group_size);
                      })
      .set_default({{"BLOCK_X", 64}, {"BLOCK_Y", 4}, {"USE_LOCAL", 0}, {"LAYOUT", 1}});
  return s;
}

TEST(TuneSpace, ParameterKinds) {
  EXPECT_EQ(parameter::power_of_two("B", 32, 256).values(), (std::vector<std::int64_t>{32, 64, 128, 256}));
  EXPECT_EQ(parameter::integers("U", {3, 1, 2}).values(), (std::vector<std::int64_t>{1, 2, 3}));
  const parameter e = parameter::enumeration("L", {"row", "col"});
  EXPECT_EQ(e.values(), (std::vector<std::int64_t>{0, 1}));
  EXPECT_EQ(e.value_text(1), "col");
  EXPECT_FALSE(e.is_ordered());
  EXPECT_EQ(parameter::boolean("F").values(), (std::vector<std::int64_t>{0, 1}));
  EXPECT_EQ(parameter::boolean("F").value_text(1), "true");
  EXPECT_EQ(parameter::integers("U", {4, 8}).index_of(8), std::optional<std::size_t>(1));
  EXPECT_FALSE(parameter::integers("U", {4, 8}).index_of(5));
  EXPECT_THROW((void)parameter::power_of_two("B", 3, 64), error);
  EXPECT_THROW((void)parameter::integers("U", {1, 1}), error);
  EXPECT_THROW((void)parameter::enumeration("L", {"a", "a"}), error);
  space s;
  s.add(parameter::boolean("F"));
  EXPECT_THROW(s.add(parameter::boolean("F")), error);
}

TEST(TuneSpace, ConstraintsFollowTheDevice) {
  const space s = block_space();
  EXPECT_EQ(s.cartesian_size(), 6u * 5u * 2u * 3u);
  // Pairs (x, y) with x * y <= 256: x = 8..256 (2^3..2^8), y = 2^0..2^4 -> 3 + i + j <= 8, i.e. i + j <= 5
  // for i in 0..5, j in 0..4: 5 + 5 + 4 + 3 + 2 + 1 = 20 pairs; times 2 booleans x 3 layouts = 120.
  const enumerated_space on_256 = s.enumerate(device_with_max_wg(256));
  EXPECT_EQ(on_256.size(), 120u);
  // max 64: 3 + i + j <= 6 -> i + j <= 3: 4 + 3 + 2 + 1 = 10 pairs -> 60.
  EXPECT_EQ(s.enumerate(device_with_max_wg(64)).size(), 60u);
  for (config_id id = 0; id < on_256.size(); ++id) {
    EXPECT_TRUE(s.is_valid(on_256.to_config(id), device_with_max_wg(256)));
  }
  const config too_big{{"BLOCK_X", 256}, {"BLOCK_Y", 16}, {"USE_LOCAL", 0}, {"LAYOUT", 0}};
  EXPECT_EQ(s.violations(too_big, device_with_max_wg(256)),
            std::vector<std::string>{"work-group size <= device maximum"});
  EXPECT_FALSE(on_256.find(too_big));
  const config unknown_value{{"BLOCK_X", 100}, {"BLOCK_Y", 1}, {"USE_LOCAL", 0}, {"LAYOUT", 0}};
  EXPECT_EQ(s.violations(unknown_value, device_with_max_wg(256)),
            std::vector<std::string>{"100 is not a value of parameter 'BLOCK_X'"});
}

TEST(TuneSpace, EmptySpaceIsAUsageErrorNamingTheConstraint) {
  const space s = block_space();
  try {
    (void)s.enumerate(device_with_max_wg(4));
    FAIL() << "expected empty_space_error";
  } catch (const usage_error& e) {
    EXPECT_NE(dynamic_cast<const empty_space_error*>(&e), nullptr);
    EXPECT_EQ(std::string(e.what()),
              "the tuning space is empty on device 'test device': none of its 180 configs satisfies every "
              "constraint ('work-group size <= device maximum' rejects 180 of 180)");
  }
}

TEST(TuneSpace, DefaultConfig) {
  const space s = block_space();
  const enumerated_space valid = s.enumerate(device_with_max_wg(256));
  ASSERT_TRUE(valid.default_id());
  EXPECT_EQ(valid.to_config(*valid.default_id()), s.default_config());
  // On a small device the default (64 x 4 = 256) is invalid: no default id, the space still enumerates.
  EXPECT_FALSE(s.enumerate(device_with_max_wg(128)).default_id());
  space bad = block_space();
  EXPECT_THROW(bad.set_default({{"BLOCK_X", 64}}), error);
  EXPECT_THROW(bad.set_default({{"BLOCK_X", 65}, {"BLOCK_Y", 4}, {"USE_LOCAL", 0}, {"LAYOUT", 1}}), error);
}

TEST(TuneSpace, Neighbourhoods) {
  const space s = block_space();
  const enumerated_space valid = s.enumerate(device_with_max_wg(256));
  const config_id start = *valid.default_id();  // 64 x 4, no local, col
  std::set<config> single;
  for (const config_id id : valid.single_step_neighbours(start)) single.insert(valid.to_config(id));
  // BLOCK_X 32 or 128 (128 x 4 = 512 > 256: invalid), BLOCK_Y 2 or 8 (64 x 8 = 512: invalid), USE_LOCAL 1,
  // LAYOUT row or tiled.
  const config base = valid.to_config(start);
  const auto with = [&](const std::string& name, std::int64_t value) {
    config c = base;
    c[name] = value;
    return c;
  };
  EXPECT_EQ(single, (std::set<config>{with("BLOCK_X", 32), with("BLOCK_Y", 2), with("USE_LOCAL", 1),
                                      with("LAYOUT", 0), with("LAYOUT", 2)}));
  std::set<config> pairs;
  for (const config_id id : valid.pair_step_neighbours(start)) pairs.insert(valid.to_config(id));
  // (32, 2), (32, 8), (128, 2) are valid; (128, 8) is not.
  config a = with("BLOCK_X", 32);
  a["BLOCK_Y"] = 2;
  config b = with("BLOCK_X", 32);
  b["BLOCK_Y"] = 8;
  config c = with("BLOCK_X", 128);
  c["BLOCK_Y"] = 2;
  EXPECT_EQ(pairs, (std::set<config>{a, b, c}));
  EXPECT_EQ(valid.neighbours(start).size(), single.size() + pairs.size());
}

TEST(TuneSpace, HashIsStableAndSeesEveryPart) {
  const std::uint64_t h = block_space().definition_hash();
  EXPECT_EQ(h, block_space().definition_hash());
  // Pinned: the hash is a cache-key field and must not change between builds or platforms.
  EXPECT_EQ(block_space().definition_hash_text(), "de02cd0a48597830");
  space other_value = block_space();
  other_value.add(parameter::boolean("EXTRA"));
  EXPECT_NE(other_value.definition_hash(), h);
  space other_constraint = block_space();
  other_constraint.add_constraint("x", [](const config&, const device_info&) { return true; });
  EXPECT_NE(other_constraint.definition_hash(), h);
  space other_default = block_space();
  other_default.set_default({{"BLOCK_X", 32}, {"BLOCK_Y", 4}, {"USE_LOCAL", 0}, {"LAYOUT", 1}});
  EXPECT_NE(other_default.definition_hash(), h);
  space other_mark;
  other_mark.add(parameter::power_of_two("BLOCK_X", 8, 256))
      .add(parameter::power_of_two("BLOCK_Y", 1, 16).block_size())
      .add(parameter::boolean("USE_LOCAL"))
      .add(parameter::enumeration("LAYOUT", {"row", "col", "tiled"}))
      .add_constraint("work-group size <= device maximum",
                      [](const config&, const device_info&) { return true; })
      .set_default({{"BLOCK_X", 64}, {"BLOCK_Y", 4}, {"USE_LOCAL", 0}, {"LAYOUT", 1}});
  EXPECT_NE(other_mark.definition_hash(), h);
}

}  // namespace
}  // namespace kbench::tune
