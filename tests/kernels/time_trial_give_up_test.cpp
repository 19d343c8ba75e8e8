// A time trial gives up on a candidate whose first synchronized calls all take more than give_up_above times
// the incumbent's time (src/suite/config_trial.cpp): it records the median of those calls instead of timing
// the candidate in full; and a candidate whose calls are too long for the full timing within the trial's time
// limit is timed fewer times, to fit. The kernel is a test double on the cpu backend, y = x, whose call
// sleeps SLEEP_US microseconds first. Only lower bounds of sleeps are relied on (a sleep never returns
// early), so no assertion depends on how fast this machine happens to be.

#include <kbench/backends/cpu.hpp>
#include <kbench/suite/detail/config_trial.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <cstddef>
#include <thread>

namespace kbench::test {
using namespace kbench::suite;  // the suite's kernel API, unqualified
namespace {

using suite::trial_phase;
using suite::trial_request;
using tune::eval_status;

kernel_definition sleepy_copy_kernel() {
  kernel_definition k;
  k.name = "sleepy_copy";
  k.shapes = {shape{256}};
  k.make_inputs = [](const shape& s, std::uint64_t) {
    host_tensor x(s);
    for (std::size_t i = 0; i < x.size(); ++i) x.values[i] = static_cast<float>(i);
    return std::vector<host_tensor>{x};
  };
  k.reference = [](const std::vector<host_tensor>& inputs) { return inputs; };
  implementation cpu_impl;
  cpu_impl.backend = backend_kind::cpu;
  cpu_impl.default_config = {{"SLEEP_US", 0}};
  cpu_impl.bind = [](const kernel_args& args) -> launcher {
    auto device = std::dynamic_pointer_cast<cpu::cpu_device>(args.device);
    const auto n = static_cast<std::size_t>(element_count(args.shape));
    const std::chrono::microseconds sleep(args.config.at("SLEEP_US"));
    buffer_ptr input = args.inputs.at(0);
    buffer_ptr output = device->allocate(n * sizeof(float));
    return [device, input, output, n, sleep] {
      const float* x = cpu::float_data(input);
      float* y = cpu::float_data(output);
      event_ptr done = device->launch([=](const cpu::parallel_context&) {
        std::this_thread::sleep_for(sleep);
        for (std::size_t i = 0; i < n; ++i) y[i] = x[i];
      });
      return call_result{{done}, {output}};
    };
  };
  k.implementations.push_back(cpu_impl);
  return k;
}

/// A time trial of `candidate` alone, told that the best so far took `incumbent_ms`.
suite::trial_outcome time_against(const config& candidate, double incumbent_ms, double give_up_above) {
  trial_request request;
  request.phase = trial_phase::time;
  request.configs = {candidate};
  request.incumbent_ms = incumbent_ms;
  request.give_up_above = give_up_above;
  request.target_ms = 1;  // [ms] the full timing is then its minimum: 5 estimate calls, 2 warm-up, 5 timed
  const auto outcomes = run_trial(sleepy_copy_kernel(), 0, request);
  EXPECT_EQ(outcomes.size(), 1u);
  return outcomes.at(0);
}

TEST(TimeTrialGiveUp, OneLongCallFarBehindTheBestIsTheWholeTiming) {
  // Each call sleeps 20 ms, more than steady_call_ms (10 ms) and more than 3 x 0.5 ms: one call decides.
  const auto out = time_against({{"SLEEP_US", 20000}}, /*incumbent_ms=*/0.5, /*give_up_above=*/3);
  EXPECT_EQ(out.status, eval_status::ok) << out.message;
  EXPECT_EQ(out.samples, 1u);
  EXPECT_GE(out.time_ms, 20.0);
  EXPECT_NE(out.message.find("more than 3x the best so far"), std::string::npos) << out.message;
}

TEST(TimeTrialGiveUp, ShortCallsFarBehindNeedAtMostFiveCalls) {
  // 1 ms calls against 0.001 ms: all far behind, none long enough to decide alone (unless the machine
  // stretches one past 10 ms, which only ends the probe sooner).
  const auto out = time_against({{"SLEEP_US", 1000}}, /*incumbent_ms=*/0.001, /*give_up_above=*/3);
  EXPECT_EQ(out.status, eval_status::ok) << out.message;
  EXPECT_GE(out.samples, 1u);
  EXPECT_LE(out.samples, 5u);
  EXPECT_GE(out.time_ms, 1.0);
  EXPECT_FALSE(out.message.empty());
}

TEST(TimeTrialGiveUp, ACandidateNearTheBestIsTimedInFull) {
  // Its calls take well under 3 x 10 s.
  const auto out = time_against({{"SLEEP_US", 0}}, /*incumbent_ms=*/10000, /*give_up_above=*/3);
  EXPECT_EQ(out.status, eval_status::ok) << out.message;
  EXPECT_GE(out.samples, 5u);
  EXPECT_TRUE(out.message.empty()) << out.message;
}

TEST(TimeTrialGiveUp, ZeroTimesEveryCandidateInFull) {
  const auto out = time_against({{"SLEEP_US", 20000}}, /*incumbent_ms=*/0.5, /*give_up_above=*/0);
  EXPECT_EQ(out.status, eval_status::ok) << out.message;
  EXPECT_GE(out.samples, 5u);
  EXPECT_TRUE(out.message.empty()) << out.message;
}

TEST(TimeTrialGiveUp, WithoutAnIncumbentThereIsNothingToBeFarBehind) {
  const auto out = time_against({{"SLEEP_US", 20000}}, /*incumbent_ms=*/0, /*give_up_above=*/3);
  EXPECT_EQ(out.status, eval_status::ok) << out.message;
  EXPECT_GE(out.samples, 5u);
  EXPECT_TRUE(out.message.empty()) << out.message;
}

/// A time trial of `candidate` alone, with no incumbent, that must end within `time_limit_s`.
suite::trial_outcome time_within(const config& candidate, double time_limit_s) {
  trial_request request;
  request.phase = trial_phase::time;
  request.configs = {candidate};
  request.target_ms = 1;
  request.time_limit_s = time_limit_s;
  const auto outcomes = run_trial(sleepy_copy_kernel(), 0, request);
  EXPECT_EQ(outcomes.size(), 1u);
  return outcomes.at(0);
}

TEST(TimeTrialTimeLimit, CallsTooLongForTheFullTimingAreTimedFewerTimesToFit) {
  // 200 ms calls, a 2 s limit (1.5 s planned): the check's 2 calls and the probe's 1 leave at most 0.9 s,
  // less than the full timing's 9 calls (1.8 s), so the trial times what fits: at most 3 more calls while
  // more than 1.5 calls' time is left. Only lower bounds of sleeps matter: a slower machine gives fewer.
  const auto out = time_within({{"SLEEP_US", 200000}}, /*time_limit_s=*/2);
  EXPECT_EQ(out.status, eval_status::ok) << out.message;
  EXPECT_GE(out.samples, 1u);
  EXPECT_LE(out.samples, 4u);
  EXPECT_GE(out.time_ms, 200.0);
  EXPECT_NE(out.message.find("leave no room for the full timing"), std::string::npos) << out.message;
}

TEST(TimeTrialTimeLimit, ShortCallsGetTheFullTimingWithinAGenerousLimit) {
  const auto out = time_within({{"SLEEP_US", 0}}, /*time_limit_s=*/60);
  EXPECT_EQ(out.status, eval_status::ok) << out.message;
  EXPECT_GE(out.samples, 5u);
  EXPECT_TRUE(out.message.empty()) << out.message;
}

}  // namespace
}  // namespace kbench::test
