// The cpu row softmax (kernels/common/cpu_row_softmax.hpp, softmax_two_pass and batch_softmax) computes
// exp(x - m) against a reference m that it raises only when a value exceeds it by more than rescale_margin,
// rescaling the sums then. Random inputs almost never raise it after a row's first step, so these rows do, at
// every place a raise can happen: a steady ramp (a raise every few steps), and pairs of spikes 100 and 99
// above the rest, in the unrolled steps, in the whole vectors after them and in the scalar tail. Without the
// raises exp(x - m) saturates (below 16 lanes the vector exp clamps at 88, and the two spikes get 0.5 each
// instead of 0.73 / 0.27) or overflows (AVX-512: inf / inf, NaN).

#include "cpu_config_combinations.hpp"

#include <kbench/suite/registry.hpp>

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

constexpr std::size_t row_length = 1100;  // AVX2, UNROLL 4: 34 steps of 32 floats, 1 whole vector, 4 floats

/// Four rows of `row_length` floats: a ramp, then small values with spikes of 100 and 99 at `spikes`.
std::vector<float> rescaling_rows() {
  const std::vector<std::pair<std::size_t, std::size_t>> spikes{{300, 700}, {500, 1090}, {20, 1098}};
  std::vector<float> values(4 * row_length);
  for (std::size_t j = 0; j < row_length; ++j) values[j] = 0.2f * static_cast<float>(j);
  for (std::size_t r = 1; r < 4; ++r) {
    float* row = values.data() + r * row_length;
    for (std::size_t j = 0; j < row_length; ++j) row[j] = std::sin(0.37f * static_cast<float>(j));
    row[spikes[r - 1].first] = 100.0f;
    row[spikes[r - 1].second] = 99.0f;
  }
  return values;
}

TEST(RowSoftmaxRescale, RampsAndLateSpikesMatchTheTorchReference) {
  const std::vector<std::pair<std::string, shape>> cases{
      {"softmax_two_pass", {4, static_cast<std::int64_t>(row_length)}},
      {"batch_softmax", {1, 4, static_cast<std::int64_t>(row_length)}}};
  for (const auto& [name, s] : cases) {
    const kernel_definition& kernel = find_kernel(name);
    host_tensor x(s);
    x.values = rescaling_rows();
    const std::int64_t best_isa = kernel.find(backend_kind::cpu)->default_config.at("ISA");
    expect_every_combination_matches(kernel, s, {x},
                                     {{"ISA", {0, best_isa}}, {"UNROLL", {1, 2, 4}}, {"STREAM", {0, 1}}});
  }
}

}  // namespace
}  // namespace kbench
