#include <kbench/config.hpp>
#include <kbench/error.hpp>
#include <kbench/host_tensor.hpp>

#include <gtest/gtest.h>

namespace kbench {
namespace {

TEST(Shape, ParsesEveryAcceptedSpelling) {
  EXPECT_EQ(parse_shape("104857600"), (shape{104857600}));
  EXPECT_EQ(parse_shape("[1024,256]"), (shape{1024, 256}));
  EXPECT_EQ(parse_shape("1024,256"), (shape{1024, 256}));
  EXPECT_EQ(parse_shape("8x256x256"), (shape{8, 256, 256}));
  // As Python prints them: blanks around the numbers, brackets or parentheses.
  EXPECT_EQ(parse_shape("[1024, 256]"), (shape{1024, 256}));
  EXPECT_EQ(parse_shape(" (8, 256, 256) "), (shape{8, 256, 256}));
  EXPECT_EQ(to_string(shape{1024, 256}), "[1024,256]");
}

TEST(Shape, RejectsMalformedTextWithTheExactMessage) {
  for (const char* bad : {"", "[]", "abc", "12,", "0", "-5", "[3,4", "3,,4", "10 24", "[3,4)", "( )"}) {
    try {
      (void)parse_shape(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const usage_error& e) {
      EXPECT_EQ(std::string(e.what()),
                std::string("invalid shape '") + bad +
                    "' (expected positive integers such as 104857600, [1024,256], 1024,256 or 1024x256)");
    }
  }
}

TEST(UniformTensor, IsDeterministicPerSeedAndWithinBounds) {
  const auto a = uniform_tensor({1000}, 7, -2.0f, 3.0f);
  const auto b = uniform_tensor({1000}, 7, -2.0f, 3.0f);
  const auto c = uniform_tensor({1000}, 8, -2.0f, 3.0f);
  EXPECT_EQ(a.values, b.values);
  EXPECT_NE(a.values, c.values);
  for (float v : a.values) {
    EXPECT_GE(v, -2.0f);
    EXPECT_LT(v, 3.0f);
  }
}

TEST(Config, RendersDefinesAndJsonWithSortedKeys) {
  const config cfg{{"WG", 256}, {"VEC", 4}};
  EXPECT_EQ(to_define_flags(cfg), "-DVEC=4 -DWG=256");
  EXPECT_EQ(to_json_text(cfg), R"({"VEC":4,"WG":256})");
}

}  // namespace
}  // namespace kbench
