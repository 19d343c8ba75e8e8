// The tuner's final pick among the configs re-timed at the end (suite/detail/final_pick.hpp): the fastest
// median, unless a config that ties with it has a higher value of a parameter preferred on a tie.

#include <kbench/suite/detail/final_pick.hpp>

#include <gtest/gtest.h>

#include <vector>

namespace kbench::suite {
namespace {

tune::space isa_and_grain_space(bool prefer_isa) {
  tune::space s;
  s.add(tune::parameter::enumeration("ISA", {"sse2", "avx2", "avx512"}).prefer_higher_on_tie(prefer_isa))
      .add(tune::parameter::power_of_two("GRAIN", 16, 1024));
  return s;
}

trial_outcome timed(int isa, int grain, double median_ms, double low_ms, double high_ms) {
  trial_outcome t;
  t.values = {{"ISA", isa}, {"GRAIN", grain}};
  t.time_ms = median_ms;
  t.time_ci_low_ms = low_ms;
  t.time_ci_high_ms = high_ms;
  return t;
}

// rms_norm [4096,4096]'s re-timing while the memory was slow: SSE2 fastest by 2%, AVX-512 within the noise.
const std::vector<trial_outcome> slow_memory_ties = {
    timed(0, 64, 2.523, 2.49, 2.60), timed(2, 64, 2.578, 2.51, 2.66), timed(2, 256, 2.615, 2.55, 2.70),
    timed(1, 16, 3.763, 3.70, 3.85)};

TEST(FinalPick, PrefersTheHigherMarkedValueAmongTies) {
  const auto pick = pick_final(slow_memory_ties, isa_and_grain_space(true));
  ASSERT_TRUE(pick);
  EXPECT_EQ(pick->fastest, 0u);
  EXPECT_EQ(pick->chosen, 1u) << "AVX-512 ties with SSE2, and of the two AVX-512 configs the faster";
  EXPECT_TRUE(pick->by_preference());
  EXPECT_EQ(pick->tied, (std::vector<std::size_t>{0, 1}))
      << "GRAIN 256's median is above SSE2's interval, though the intervals overlap; AVX2 at 3.7 ms is far "
         "off";
}

TEST(FinalPick, WithoutAMarkTheFastestMedianWins) {
  const auto pick = pick_final(slow_memory_ties, isa_and_grain_space(false));
  ASSERT_TRUE(pick);
  EXPECT_EQ(pick->chosen, 0u);
  EXPECT_FALSE(pick->by_preference());
}

TEST(FinalPick, AClearlyFasterConfigWinsWhateverItsMarkedValue) {
  // The fast-memory moment reversed: here SSE2 is compute-capped, far outside AVX-512's interval. And an
  // AVX-512 config that is clearly slower than the SSE2 one must not win either.
  const std::vector<trial_outcome> retimed = {timed(2, 1024, 1.70, 1.62, 1.80),
                                              timed(0, 64, 2.80, 2.67, 2.98)};
  EXPECT_EQ(pick_final(retimed, isa_and_grain_space(true))->chosen, 0u);
  const std::vector<trial_outcome> reversed = {timed(0, 64, 1.70, 1.62, 1.80),
                                               timed(2, 64, 2.80, 2.67, 2.98)};
  const auto pick = pick_final(reversed, isa_and_grain_space(true));
  EXPECT_EQ(pick->chosen, 0u);
  EXPECT_EQ(pick->tied, (std::vector<std::size_t>{0}));
}

TEST(FinalPick, OverlappingIntervalsAreNoTie) {
  // add [4096,4096] re-timed with the memory fast: AVX-512 is 7% slower by the medians.
  const std::vector<trial_outcome> retimed = {timed(1, 64, 2.567, 2.455, 2.657),
                                              timed(2, 32, 2.740, 2.648, 2.826)};
  const auto pick = pick_final(retimed, isa_and_grain_space(true));
  EXPECT_EQ(pick->chosen, 0u);
  EXPECT_EQ(pick->tied, (std::vector<std::size_t>{0}));
}

TEST(FinalPick, FailedConfigsNeverWin) {
  std::vector<trial_outcome> retimed = slow_memory_ties;
  retimed[1].status = tune::eval_status::wrong_result;
  retimed[2].status = tune::eval_status::timeout;
  const auto pick = pick_final(retimed, isa_and_grain_space(true));
  ASSERT_TRUE(pick);
  EXPECT_EQ(pick->chosen, 0u) << "the AVX-512 configs that tied failed";
  for (auto& r : retimed) r.status = tune::eval_status::runtime_error;
  EXPECT_FALSE(pick_final(retimed, isa_and_grain_space(true)));
}

TEST(FinalPick, AnOutcomeWithoutAnIntervalTiesOnlyAtTheSameMedian) {
  const std::vector<trial_outcome> retimed = {timed(0, 64, 2.50, 0, 0), timed(2, 64, 2.51, 0, 0)};
  EXPECT_EQ(pick_final(retimed, isa_and_grain_space(true))->chosen, 0u);
  const std::vector<trial_outcome> equal = {timed(0, 64, 2.50, 0, 0), timed(2, 64, 2.50, 0, 0)};
  EXPECT_EQ(pick_final(equal, isa_and_grain_space(true))->chosen, 1u);
}

}  // namespace
}  // namespace kbench::suite
