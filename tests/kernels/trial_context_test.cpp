// What a served tuning worker keeps between trials (runner/config_trial.hpp): the inputs on the device, which
// every new binding gets rewritten, and the bindings of the candidate and the incumbent, which the next time
// trial reuses instead of binding and checking them again. The kernel here is a test double, y = -x on the
// cpu backend, whose config CLOBBER=1 also overwrites its own input x after each call: the fault of a config
// that writes into its inputs, which fails its own check (its checked call is its second) and must not fail
// the next config's.

#include <kbench/backends/cpu.hpp>
#include <kbench/runner/config_trial.hpp>

#include <gtest/gtest.h>

#include <cstddef>

namespace kbench::test {
namespace {

using runner::trial_context;
using runner::trial_phase;
using runner::trial_request;
using tune::eval_status;

kernel_definition negate_kernel() {
  kernel_definition k;
  k.name = "negate";
  k.shapes = {shape{4096}};
  k.make_inputs = [](const shape& s, std::uint64_t) {
    host_tensor x(s);
    for (std::size_t i = 0; i < x.size(); ++i) x.values[i] = static_cast<float>(i % 97) - 48.0f;
    return std::vector<host_tensor>{x};
  };
  k.reference = [](const std::vector<host_tensor>& inputs) {
    host_tensor y(inputs[0].shape);
    for (std::size_t i = 0; i < y.size(); ++i) y.values[i] = -inputs[0].values[i];
    return std::vector<host_tensor>{y};
  };
  implementation cpu_impl;
  cpu_impl.backend = backend_kind::cpu;
  cpu_impl.default_config = {{"CLOBBER", 0}};
  cpu_impl.bind = [](const kernel_args& args) -> launcher {
    auto device = std::dynamic_pointer_cast<cpu::cpu_device>(args.device);
    const auto n = static_cast<std::size_t>(element_count(args.shape));
    const bool clobber = args.config.at("CLOBBER") != 0;
    buffer_ptr input = args.inputs.at(0);
    buffer_ptr output = device->allocate(n * sizeof(float));
    return [device, input, output, n, clobber] {
      float* x = cpu::float_data(input);
      float* y = cpu::float_data(output);
      event_ptr done = device->launch([=](const cpu::parallel_context&) {
        for (std::size_t i = 0; i < n; ++i) y[i] = -x[i];
        if (clobber) {
          for (std::size_t i = 0; i < n; ++i) x[i] = 12345.0f;
        }
      });
      return call_result{{done}, {output}};
    };
  };
  k.implementations.push_back(cpu_impl);
  return k;
}

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
