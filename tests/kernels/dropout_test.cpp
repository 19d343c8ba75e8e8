// low_mem_dropout's random stream: the keep rate is binomial, the mask follows the seed, and every output is
// either 0 or x / (1 - p).

#include <kbench/backends/registry.hpp>
#include <kbench/suite/bound_kernel.hpp>
#include <kbench/suite/registry.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace kbench {
using namespace suite;  // the suite's kernel API, unqualified
namespace {

constexpr double drop_p = 0.5;  // the kernel's fixed drop probability (low_mem_dropout_p)

struct keep_count {
  std::size_t kept = 0;
  std::size_t dropped = 0;
  std::size_t other = 0;  // neither 0 nor 1 / (1 - p): a wrong output
};

device_ptr device_or_skip_reason(backend_kind kind, std::string& reason) {
  for (const auto& status : probe_backends()) {
    if (status.kind != kind) continue;
    if (status.available) return open_device(kind);
    reason = status.reason;
  }
  return nullptr;
}

/// Runs low_mem_dropout on `kind` over x = 1 (so a kept element reads exactly 1 / (1 - p)) and counts.
keep_count run_on_ones(backend_kind kind, const device_ptr& device, const shape& s, std::uint64_t seed,
                       std::vector<float>* outputs = nullptr) {
  const kernel_definition& kernel = find_kernel("low_mem_dropout");
  auto inputs = kernel.make_inputs(s, seed);
  for (float& v : inputs.at(0).values) v = 1.0f;
  const std::vector<host_tensor> shapes_only{host_tensor(s)};
  const bound_kernel bound(kernel, *kernel.find(kind), device, s, inputs);
  const auto got = bound.run_and_read(shapes_only);
  keep_count count;
  const auto kept_value = static_cast<float>(1.0 / (1.0 - drop_p));
  for (float v : got.at(0).values) {
    if (v == kept_value) {
      ++count.kept;
    } else if (v == 0.0f) {
      ++count.dropped;
    } else {
      ++count.other;
    }
  }
  if (outputs) *outputs = got.at(0).values;
  return count;
}

void expect_binomial_keep_rate(const keep_count& count, std::size_t n) {
  EXPECT_EQ(count.other, 0U);
  EXPECT_EQ(count.kept + count.dropped, n);
  const double expected = static_cast<double>(n) * (1.0 - drop_p);
  const double sigma = std::sqrt(static_cast<double>(n) * drop_p * (1.0 - drop_p));
  EXPECT_LE(std::abs(static_cast<double>(count.kept) - expected), 6.0 * sigma)
      << count.kept << " of " << n << " kept; expected " << expected << " +- 6 * " << sigma;
}

struct rate_case {
  backend_kind backend;
  std::int64_t n;
};

class DropoutKeepRate : public testing::TestWithParam<rate_case> {};

TEST_P(DropoutKeepRate, LiesWithinSixSigmaOfTheBinomialExpectation) {
  const auto& p = GetParam();
  std::string reason;
  device_ptr device = device_or_skip_reason(p.backend, reason);
  if (!device) GTEST_SKIP() << to_string(p.backend) << " unavailable here: " << reason;
  if (!find_kernel("low_mem_dropout").find(p.backend))
    GTEST_SKIP() << "no " << to_string(p.backend) << " implementation";
  const shape s{p.n};
  for (std::uint64_t seed : {0ULL, 1234ULL}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    expect_binomial_keep_rate(run_on_ones(p.backend, device, s, seed), static_cast<std::size_t>(p.n));
  }
}

INSTANTIATE_TEST_SUITE_P(LowMemDropout, DropoutKeepRate,
                         testing::Values(rate_case{backend_kind::cpu, 1048576},
                                         rate_case{backend_kind::cpu, 16777216},
                                         rate_case{backend_kind::opencl, 1048576}),
                         [](const testing::TestParamInfo<rate_case>& param_info) {
                           return std::string(to_string(param_info.param.backend)) + "_" +
                                  std::to_string(param_info.param.n);
                         });

TEST(LowMemDropout, TheLargeShapeMatchesTheTorchReferenceExactlyOnCpu) {
  // The accuracy suite checks the first two shapes; this checks the 16M one, where indices use all 24 bits.
  const kernel_definition& kernel = find_kernel("low_mem_dropout");
  const shape s = kernel.shapes.back();
  const auto inputs = kernel.make_inputs(s, 1234);
  const auto expected = kernel.reference(inputs);
  const bound_kernel bound(kernel, *kernel.find(backend_kind::cpu), open_device(backend_kind::cpu), s,
                           inputs);
  const auto got = bound.run_and_read(expected);
  std::size_t differing = 0;
  for (std::size_t i = 0; i < got.at(0).values.size(); ++i) {
    if (got[0].values[i] != expected[0].values[i]) ++differing;
  }
  EXPECT_EQ(differing, 0U);
}

TEST(LowMemDropout, TheMaskFollowsTheSeed) {
  const shape s{65536};
  device_ptr cpu = open_device(backend_kind::cpu);
  std::vector<float> first;
  std::vector<float> again;
  std::vector<float> other;
  (void)run_on_ones(backend_kind::cpu, cpu, s, 7, &first);
  (void)run_on_ones(backend_kind::cpu, cpu, s, 7, &again);
  (void)run_on_ones(backend_kind::cpu, cpu, s, 8, &other);
  EXPECT_EQ(first, again);  // deterministic
  std::size_t differing = 0;
  for (std::size_t i = 0; i < first.size(); ++i) differing += first[i] != other[i] ? 1 : 0;
  // Two independent masks with p = 0.5 differ in about half the elements.
  EXPECT_GT(differing, first.size() / 4);
  EXPECT_LT(differing, 3 * first.size() / 4);
}

}  // namespace
}  // namespace kbench
