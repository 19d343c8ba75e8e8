// The check call of a bound kernel (bound_kernel::run_and_read) reads back only what that call wrote: the
// output buffers are filled with NaN between a first call and the checked one, so a config that skips some
// output elements fails its check even when its buffer already held the right answer (memory that an earlier
// binding, another config's, left behind). Outputs that are also inputs (in place) keep their values.
//
// The kernels are test doubles on the cpu backend: y = -x whose binding pre-fills y with the right answer
// and whose calls write all but the last SKIP elements, and an in-place |x|.

#include <kbench/backends/cpu.hpp>
#include <kbench/suite/accuracy.hpp>
#include <kbench/suite/bound_kernel.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace kbench {
using namespace suite;  // the suite's kernel API, unqualified
namespace {

constexpr std::int64_t elements = 1000;

std::vector<host_tensor> ramp_inputs(const shape& s, std::uint64_t) {
  host_tensor x(s);
  for (std::size_t i = 0; i < x.size(); ++i) x.values[i] = static_cast<float>(i % 31) - 15.0f;
  return {x};
}

/// A kernel of one shape whose reference applies `op` to every element of its one input; no implementation.
kernel_definition elementwise_kernel(std::string name, float (*op)(float)) {
  kernel_definition k;
  k.name = std::move(name);
  k.shapes = {shape{elements}};
  k.make_inputs = ramp_inputs;
  k.reference = [op](const std::vector<host_tensor>& inputs) {
    host_tensor y(inputs[0].shape);
    for (std::size_t i = 0; i < y.size(); ++i) y.values[i] = op(inputs[0].values[i]);
    return std::vector<host_tensor>{y};
  };
  return k;
}

kernel_definition stale_negate_kernel() {
  kernel_definition k = elementwise_kernel("stale_negate", [](float x) { return -x; });
  implementation impl;
  impl.backend = backend_kind::cpu;
  impl.default_config = {{"SKIP", 0}};
  impl.bind = [](const kernel_args& args) -> launcher {
    auto device = std::dynamic_pointer_cast<cpu::cpu_device>(args.device);
    const auto n = static_cast<std::size_t>(element_count(args.shape));
    const auto written = n - static_cast<std::size_t>(args.config.at("SKIP"));
    buffer_ptr input = args.inputs.at(0);
    buffer_ptr output = device->allocate(n * sizeof(float));
    // What the allocator may hand back: an earlier binding's right answer.
    for (std::size_t i = 0; i < n; ++i) cpu::float_data(output)[i] = -cpu::float_data(input)[i];
    return [device, input, output, written] {
      const float* x = cpu::float_data(input);
      float* y = cpu::float_data(output);
      event_ptr done = device->launch([=](const cpu::parallel_context&) {
        for (std::size_t i = 0; i < written; ++i) y[i] = -x[i];
      });
      return call_result{{done}, {output}};
    };
  };
  k.implementations.push_back(impl);
  return k;
}

kernel_definition in_place_abs_kernel() {
  kernel_definition k = elementwise_kernel("in_place_abs", [](float x) { return std::fabs(x); });
  implementation impl;
  impl.backend = backend_kind::cpu;
  impl.bind = [](const kernel_args& args) -> launcher {
    auto device = std::dynamic_pointer_cast<cpu::cpu_device>(args.device);
    const auto n = static_cast<std::size_t>(element_count(args.shape));
    buffer_ptr x_buffer = args.inputs.at(0);
    return [device, x_buffer, n] {
      float* x = cpu::float_data(x_buffer);
      event_ptr done = device->launch([=](const cpu::parallel_context&) {
        for (std::size_t i = 0; i < n; ++i) x[i] = std::fabs(x[i]);
      });
      return call_result{{done}, {x_buffer}};
    };
  };
  k.implementations.push_back(impl);
  return k;
}

accuracy_report check(const kernel_definition& kernel, const config& cfg) {
  const shape& s = kernel.shapes.front();
  const auto inputs = kernel.make_inputs(s, 1);
  const auto expected = kernel.reference(inputs);
  const bound_kernel bound(kernel, kernel.implementations.front(), std::make_shared<cpu::cpu_device>(2), s,
                           inputs, cfg);
  return check_accuracy(bound.run_and_read(expected), expected, kernel.tolerance);
}

TEST(BoundKernelCheck, AConfigThatWritesEveryOutputElementPasses) {
  const accuracy_report report = check(stale_negate_kernel(), {{"SKIP", 0}});
  EXPECT_TRUE(report.passed) << report.message;
}

TEST(BoundKernelCheck, OutputElementsTheCallDoesNotWriteFailOnAStaleRightAnswer) {
  const kernel_definition kernel = stale_negate_kernel();
  const accuracy_report nothing_written = check(kernel, {{"SKIP", elements}});
  EXPECT_FALSE(nothing_written.passed);
  EXPECT_EQ(nothing_written.mismatches, static_cast<std::size_t>(elements));
  const accuracy_report last_skipped = check(kernel, {{"SKIP", 1}});
  EXPECT_FALSE(last_skipped.passed);
  EXPECT_EQ(last_skipped.mismatches, 1U);
}

TEST(BoundKernelCheck, AnInPlaceOutputKeepsItsValues) {
  const accuracy_report report = check(in_place_abs_kernel(), {});
  EXPECT_TRUE(report.passed) << report.message;
}

}  // namespace
}  // namespace kbench
