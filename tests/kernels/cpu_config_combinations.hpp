#pragma once
// For the cpu row kernel tests (row_unroll_test.cpp, row_softmax_rescale_test.cpp, row_stream_test.cpp): run
// a kernel's cpu implementation under every combination of some parameters' values against the torch
// reference.

#include <kbench/backends/registry.hpp>
#include <kbench/suite/accuracy.hpp>
#include <kbench/suite/bound_kernel.hpp>
#include <kbench/suite/registry.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace kbench {
using namespace suite;  // the suite's kernel API, unqualified

/// Binds `kernel`'s cpu implementation on `inputs` (shape `s`) with its default config changed to each
/// combination of `values` (parameter -> the values to try), and expects each binding to use that config and
/// its result to match the torch reference within the kernel's tolerance.
inline void expect_every_combination_matches(const kernel_definition& kernel, const shape& s,
                                             const std::vector<host_tensor>& inputs,
                                             const std::map<std::string, std::vector<std::int64_t>>& values) {
  const device_ptr device = open_device(backend_kind::cpu);
  const implementation& impl = *kernel.find(backend_kind::cpu);
  const auto expected = kernel.reference(inputs);
  std::vector<config> configs{impl.default_config};
  for (const auto& [name, choices] : values) {
    std::vector<config> extended;
    for (const config& base : configs) {
      for (const std::int64_t choice : choices) {
        extended.push_back(base);
        extended.back()[name] = choice;
      }
    }
    configs = std::move(extended);
  }
  for (const config& cfg : configs) {
    SCOPED_TRACE(testing::Message() << kernel.name << " " << to_string(s) << " " << to_json_text(cfg));
    const bound_kernel bound(kernel, impl, device, s, inputs, cfg);
    EXPECT_EQ(bound.used_config(), cfg);
    const accuracy_report report = check_accuracy(bound.run_and_read(expected), expected, kernel.tolerance);
    EXPECT_TRUE(report.passed) << report.message;
  }
}

}  // namespace kbench
