// Every kernel's tuning spaces (kernel_builder::tune) on the backends available here: the space's default is
// the implementation's default config and valid on the device, the space enumerates, and a sample of its
// configs spread over the enumeration binds on the kernel's first shape and matches the torch reference. The
// kernel code has to honour every config of its space; the autotuner relies on it.

#include <kbench/backends/registry.hpp>
#include <kbench/suite/accuracy.hpp>
#include <kbench/suite/bound_kernel.hpp>
#include <kbench/suite/registry.hpp>
#include <kbench/tune/space.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <map>
#include <ostream>
#include <string>
#include <vector>

namespace kbench {
using namespace suite;  // the suite's kernel API, unqualified
namespace {

struct space_case {
  std::string kernel;
  backend_kind backend;
};

void PrintTo(const space_case& c, std::ostream* os) {
  *os << c.kernel << "/" << to_string(c.backend);
}

/// Configs checked per space: each one binds and runs once on the kernel's first (smallest) shape. An OpenCL
/// bind builds a program (0.3-1 s on PoCL on a busy 2-core machine), hence fewer there; both keep the whole
/// test under a minute while still reaching both ends of every space.
std::size_t sampled_configs(backend_kind backend) {
  return backend == backend_kind::opencl ? 4 : 6;
}

/// (kernel, backend) pairs whose implementation declares a tuning space; cuda is listed too and skips where
/// there is no GPU.
std::vector<space_case> space_cases() {
  std::vector<space_case> cases;
  for (const auto& kernel : all_kernels()) {
    for (const auto& impl : kernel.implementations) {
      if (impl.tuning_space) cases.push_back({kernel.name, impl.backend});
    }
  }
  return cases;
}

device_ptr device_for(backend_kind kind, std::string& reason) {
  static std::map<backend_kind, backend_status> statuses = [] {
    std::map<backend_kind, backend_status> m;
    for (auto& s : probe_backends()) m[s.kind] = s;
    return m;
  }();
  const auto& status = statuses[kind];
  if (!status.available) {
    reason = status.reason;
    return nullptr;
  }
  return open_device(kind);
}

/// Up to `count` ids spread evenly over [0, size): the first and the last always, when size allows.
std::vector<tune::config_id> spread_ids(std::size_t size, std::size_t count) {
  std::vector<tune::config_id> ids;
  const std::size_t k = std::min(size, count);
  for (std::size_t i = 0; i < k; ++i) {
    const std::size_t id = k == 1 ? 0 : i * (size - 1) / (k - 1);
    ids.push_back(static_cast<tune::config_id>(id));
  }
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

class TuningSpace : public testing::TestWithParam<space_case> {};

TEST_P(TuningSpace, DefaultIsValidAndSampledConfigsMatchTheTorchReference) {
  const auto& p = GetParam();
  std::string reason;
  device_ptr device = device_for(p.backend, reason);
  if (!device) GTEST_SKIP() << to_string(p.backend) << " unavailable here: " << reason;
  const kernel_definition& kernel = find_kernel(p.kernel);
  const implementation& impl = *kernel.find(p.backend);
  const shape& s = kernel.shapes.front();
  const tune::space space = impl.tuning_space(s);

  EXPECT_EQ(space.default_config(), impl.default_config)
      << "space default " << to_json_text(space.default_config()) << " vs implement() default "
      << to_json_text(impl.default_config);
  const auto violations = space.violations(space.default_config(), device->info());
  EXPECT_TRUE(violations.empty()) << "the default " << to_json_text(space.default_config())
                                  << " violates: " << testing::PrintToString(violations);

  const tune::enumerated_space valid = space.enumerate(device->info());  // throws when empty
  ASSERT_GT(valid.size(), 0U);
  EXPECT_TRUE(valid.default_id().has_value()) << "the default is not among the enumerated configs";

  for (const tune::config_id id : spread_ids(valid.size(), sampled_configs(p.backend))) {
    const config cfg = valid.to_config(id);
    SCOPED_TRACE(testing::Message() << "config " << id << " of " << valid.size() << ": "
                                    << to_json_text(cfg));
    // New inputs per config: an output buffer that reuses the memory of the previous config's could
    // otherwise hold the right answer without the kernel writing it.
    const auto inputs = kernel.make_inputs(s, 1234 + id);
    const auto expected = kernel.reference(inputs);
    try {
      const bound_kernel bound(kernel, impl, device, s, inputs, cfg);
      EXPECT_EQ(bound.used_config(), cfg);
      const auto report = check_accuracy(bound.run_and_read(expected), expected, kernel.tolerance);
      EXPECT_TRUE(report.passed) << report.message;
    } catch (const std::exception& e) {
      ADD_FAILURE() << "binding or running threw: " << e.what();
    }
  }
}

// Without any space registered the list is empty; that is not an error of this test.
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(TuningSpace);

INSTANTIATE_TEST_SUITE_P(AllKernels, TuningSpace, testing::ValuesIn(space_cases()),
                         [](const testing::TestParamInfo<space_case>& param_info) {
                           return param_info.param.kernel + "_" +
                                  std::string(to_string(param_info.param.backend));
                         });

TEST(TuningSpaceSample, SpreadsOverTheWholeEnumeration) {
  EXPECT_EQ(spread_ids(1, 6), (std::vector<tune::config_id>{0}));
  EXPECT_EQ(spread_ids(3, 6), (std::vector<tune::config_id>{0, 1, 2}));
  EXPECT_EQ(spread_ids(11, 6), (std::vector<tune::config_id>{0, 2, 4, 6, 8, 10}));
  EXPECT_TRUE(spread_ids(0, 6).empty());
}

}  // namespace
}  // namespace kbench
