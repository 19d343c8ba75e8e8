// What a kernel's results are checked against when kbench is built without libtorch (reference_outputs: the
// kernel's cpu implementation at its default config), and how a kernel's optional parts join its registration
// (register_kernel_extension: the torch reference and baseline of kernels/<name>/torch.cpp).

#include <kbench/backends/cpu.hpp>
#include <kbench/error.hpp>
#include <kbench/suite/accuracy.hpp>
#include <kbench/suite/bound_kernel.hpp>
#include <kbench/suite/reference.hpp>
#include <kbench/suite/registry.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace kbench {
using namespace suite;  // the suite's kernel API, unqualified
namespace {

std::vector<host_tensor> ramp_inputs(const shape& s, std::uint64_t) {
  host_tensor x(s);
  for (std::size_t i = 0; i < x.size(); ++i) x.values[i] = static_cast<float>(i % 17) - 8.0f;
  return {x};
}

/// y = SCALE * x on the cpu backend (SCALE a config value, 3 by default).
launcher bind_scale_cpu(const kernel_args& args) {
  auto device = std::dynamic_pointer_cast<cpu::cpu_device>(args.device);
  const auto n = static_cast<std::size_t>(element_count(args.shape));
  const auto factor = static_cast<float>(args.config.at("SCALE"));
  buffer_ptr input = args.inputs.at(0);
  buffer_ptr output = output_buffer(args, 0, n * sizeof(float));
  return [device, input, output, n, factor] {
    const float* x = cpu::float_data(input);
    float* y = cpu::float_data(output);
    event_ptr done = device->launch([=](const cpu::parallel_context&) {
      for (std::size_t i = 0; i < n; ++i) y[i] = factor * x[i];
    });
    return call_result{{done}, {output}};
  };
}

kernel_builder scale_kernel(std::string name) {
  kernel_builder builder(std::move(name));
  builder.shapes({{4, 25}})
      .inputs(&ramp_inputs)
      .implement(backend_kind::cpu, &bind_scale_cpu, {{"SCALE", 3}});
  return builder;
}

TEST(KernelReference, WithoutAReferenceTheCpuImplementationAtItsDefaultConfigIsTheReference) {
  const kernel_definition kernel = scale_kernel("scale_no_reference").build();
  const shape s = kernel.shapes.front();
  const auto inputs = kernel.make_inputs(s, 0);
  const auto expected = reference_outputs(kernel, s, inputs);
  ASSERT_EQ(expected.size(), 1U);
  EXPECT_EQ(expected[0].shape, shape{100});  // read back flat: the shapes are not known without a reference
  for (std::size_t i = 0; i < expected[0].size(); ++i)
    EXPECT_EQ(expected[0].values[i], 3.0f * inputs[0].values[i]);
  EXPECT_EQ(reference_name(kernel), "the cpu implementation");
}

TEST(KernelReference, AnotherConfigIsCheckedAgainstTheDefaultOne) {
  const kernel_definition kernel = scale_kernel("scale_checked").build();
  const shape s = kernel.shapes.front();
  const auto inputs = kernel.make_inputs(s, 0);
  const auto expected = reference_outputs(kernel, s, inputs);
  const auto check = [&](std::int64_t factor) {
    const bound_kernel bound(kernel, kernel.implementations.front(), std::make_shared<cpu::cpu_device>(2), s,
                             inputs, {{"SCALE", factor}});
    return check_accuracy(bound.run_and_read(expected), expected, kernel.tolerance);
  };
  EXPECT_TRUE(check(3).passed);
  const accuracy_report wrong = check(2);
  EXPECT_FALSE(wrong.passed);
  EXPECT_EQ(wrong.mismatches, 94U);  // every element but the 6 zeros of the ramp
}

TEST(KernelReference, AKernelWithNeitherAReferenceNorACpuImplementationCannotBeChecked) {
  kernel_definition kernel = scale_kernel("scale_opencl_only").build();
  kernel.implementations.front().backend = backend_kind::opencl;
  const auto inputs = kernel.make_inputs(kernel.shapes.front(), 0);
  EXPECT_THROW((void)reference_outputs(kernel, kernel.shapes.front(), inputs), error);
}

TEST(KernelExtension, AddsTheReferenceAndAnImplementationToTheRegisteredKernel) {
  register_kernel(scale_kernel("scale_extended").build());
  kernel_builder extension("scale_extended");
  extension
      .reference([](const std::vector<host_tensor>& inputs) {
        host_tensor y = inputs.at(0);
        for (float& v : y.values) v *= 3.0f;
        return std::vector<host_tensor>{y};
      })
      .implement(backend_kind::torch, &bind_scale_cpu, {{"SCALE", 3}}, "y = 3 x");
  register_kernel_extension(std::move(extension).build());
  const kernel_definition& kernel = find_kernel("scale_extended");
  ASSERT_TRUE(kernel.reference);
  EXPECT_EQ(reference_name(kernel), "torch");
  ASSERT_NE(kernel.find(backend_kind::torch), nullptr);
  EXPECT_EQ(kernel.find(backend_kind::torch)->baseline_form, "y = 3 x");
  ASSERT_NE(kernel.find(backend_kind::cpu), nullptr);
  const auto inputs = kernel.make_inputs(kernel.shapes.front(), 0);
  EXPECT_EQ(reference_outputs(kernel, kernel.shapes.front(), inputs)[0].shape, (shape{4, 25}));
}

TEST(KernelExtension, OfAnUnknownKernelOrABackendImplementedTwiceFailsOnce) {
  register_kernel(scale_kernel("scale_twice").build());
  register_kernel_extension(scale_kernel("scale_twice").build());  // cpu again
  EXPECT_THROW((void)all_kernels(), error);
  register_kernel_extension(kernel_builder("no_such_kernel").build());
  EXPECT_THROW((void)all_kernels(), error);
  EXPECT_NO_THROW((void)all_kernels());  // applied (or refused) once; the registry stays readable
  EXPECT_EQ(find_kernel("scale_twice").implementations.size(), 1U);
}

}  // namespace
}  // namespace kbench
