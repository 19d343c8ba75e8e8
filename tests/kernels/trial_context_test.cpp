// What a served tuning worker keeps between trials (suite/detail/config_trial.hpp): the inputs on the device,
// which every new binding gets rewritten, and the bindings of the candidate and the incumbent, which the next
// time trial reuses instead of binding and checking them again. The kernel here is a test double, y = -x on
// the cpu backend (support/negate_kernel.hpp), whose config CLOBBER=1 also overwrites its own input x after
// each call: the fault of a config that writes into its inputs, which fails its own check (its checked call
// is its second) and must not fail the next config's.

#include "support/negate_kernel.hpp"

#include <kbench/suite/detail/config_trial.hpp>

#include <gtest/gtest.h>

#include <cstddef>

namespace kbench::test {
using namespace kbench::suite;  // the suite's kernel API, unqualified
namespace {

using suite::trial_context;
using suite::trial_phase;
using suite::trial_request;
using tune::eval_status;

trial_request time_request(std::vector<config> configs, double incumbent_ms = 0) {
  trial_request request;
  request.phase = trial_phase::time;
  request.configs = std::move(configs);
  request.incumbent_ms = incumbent_ms;
  request.target_ms = 1;
  return request;
}

const config clobbers{{"CLOBBER", 1}};
const config behaves{{"CLOBBER", 0}};

TEST(TrialContext, AConfigThatWritesItsInputsDoesNotSpoilTheNextConfigsCheck) {
  const kernel_definition kernel = negate_kernel();
  trial_context context(kernel, 0, backend_kind::cpu, 0);
  const auto first = run_trial(context, time_request({clobbers}));
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].status, eval_status::wrong_result)
      << "its checked call is its second (bound_kernel::run_and_read), which reads the x its first overwrote";
  const auto second = run_trial(context, time_request({behaves}));
  ASSERT_EQ(second.size(), 1u);
  EXPECT_EQ(second[0].status, eval_status::ok) << second[0].message;
}

TEST(TrialContext, TheIncumbentIsBoundAndCheckedOnceAcrossTimeTrials) {
  const kernel_definition kernel = negate_kernel();
  trial_context context(kernel, 0, backend_kind::cpu, 0);
  const auto first = run_trial(context, time_request({behaves}));
  ASSERT_EQ(first[0].status, eval_status::ok) << first[0].message;
  const auto incumbent = context.checked_binding(behaves);
  ASSERT_NE(incumbent, nullptr);

  // A candidate near the incumbent (incumbent_ms far above it): both are timed interleaved, the incumbent
  // from its kept binding.
  const config candidate{{"CLOBBER", 0}, {"UNUSED", 1}};
  const auto second = run_trial(context, time_request({candidate, behaves}, 1e9));
  ASSERT_EQ(second.size(), 2u);
  EXPECT_EQ(second[0].status, eval_status::ok) << second[0].message;
  EXPECT_GT(second[0].retime_ms, 0) << "the candidate came near the incumbent";
  EXPECT_EQ(context.checked_binding(behaves), incumbent) << "the incumbent was bound again";
  EXPECT_NE(context.checked_binding(candidate), nullptr) << "the candidate is kept too";

  // A third config replaces the kept candidate; the incumbent stays.
  const config other{{"CLOBBER", 0}, {"UNUSED", 2}};
  const auto third = run_trial(context, time_request({other, behaves}, 1e9));
  EXPECT_EQ(third[0].status, eval_status::ok) << third[0].message;
  EXPECT_EQ(context.checked_binding(behaves), incumbent);
  EXPECT_EQ(context.checked_binding(candidate), nullptr);
}

}  // namespace
}  // namespace kbench::test
