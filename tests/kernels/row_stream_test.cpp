// STREAM = 1 of the cpu row kernels that write a row per row (layer_norm, rms_norm, welford,
// softmax_two_pass, batch_softmax): the output goes out through non-temporal stores
// (kernels/common/cpu_simd.hpp write_vectors; the softmaxes keep pass 1's exps in a per-thread row buffer
// then). Their spaces offer it only for outputs of more than 4 MiB, so the sampled configs of
// tuning_space_test.cpp (on the smallest shapes) never reach it; these tests run it against the torch
// reference on rows that start 16-byte aligned (the streaming path) and on rows of an odd length
// (write_vectors falls back to normal stores), for sse2 and the host's best ISA, and check which shapes'
// spaces offer it.

#include "cpu_config_combinations.hpp"

#include <kbench/backends/registry.hpp>
#include <kbench/error.hpp>
#include <kbench/suite/bound_kernel.hpp>
#include <kbench/suite/registry.hpp>
#include <kbench/tune/space.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace kbench {
using namespace suite;  // the suite's kernel API, unqualified
namespace {

const std::vector<std::string>& streaming_row_kernels() {
  static const std::vector<std::string> names{"layer_norm", "rms_norm", "welford", "softmax_two_pass",
                                              "batch_softmax"};
  return names;
}

/// `s` with its last dimension (the row length) replaced by `cols`.
shape with_row_length(shape s, std::int64_t cols) {
  s.back() = cols;
  return s;
}

/// Whether any config of `kernel`'s cpu space at `s` has STREAM = 1 on `device`.
bool space_offers_streaming(const kernel_definition& kernel, const shape& s, const device_ptr& device) {
  const tune::enumerated_space valid =
      kernel.find(backend_kind::cpu)->tuning_space(s).enumerate(device->info());
  for (tune::config_id id = 0; id < valid.size(); ++id) {
    if (valid.to_config(id).at("STREAM") == 1) return true;
  }
  return false;
}

TEST(RowKernelStreamingStores, MatchTheTorchReferenceOnAlignedAndOddRows) {
  for (const std::string& name : streaming_row_kernels()) {
    const kernel_definition& kernel = find_kernel(name);
    const std::int64_t host_isa = kernel.find(backend_kind::cpu)->default_config.at("ISA");  // the best here
    // The first shape's rows (256 floats) start 16-byte aligned: non-temporal stores. 1027 floats: every
    // row but the first starts misaligned, and each row ends in a partial vector.
    for (const shape& s : {kernel.shapes.front(), with_row_length(kernel.shapes.front(), 1027)}) {
      expect_every_combination_matches(kernel, s, kernel.make_inputs(s, 77),
                                       {{"STREAM", {1}}, {"ISA", {host_isa, 0}}});  // 0: sse2, 4 lanes
    }
  }
}

TEST(RowKernelStreamingStores, OfferedOnlyForOutputsOfMoreThanFourMebibytes) {
  const device_ptr device = open_device(backend_kind::cpu);
  for (const std::string& name : streaming_row_kernels()) {
    const kernel_definition& kernel = find_kernel(name);
    SCOPED_TRACE(name);
    EXPECT_FALSE(space_offers_streaming(kernel, kernel.shapes.front(), device))
        << to_string(kernel.shapes.front()) << ": the output fits the cache";
    EXPECT_TRUE(space_offers_streaming(kernel, kernel.shapes.back(), device))
        << to_string(kernel.shapes.back());
  }
  // At the boundary, for a row kernel and an elementwise one: 1024 x 1024 floats (4 MiB) stay in the cache,
  // 1024 x 1028 do not.
  for (const std::string name : {"rms_norm", "add"}) {
    SCOPED_TRACE(name);
    const kernel_definition& kernel = find_kernel(name);
    EXPECT_FALSE(space_offers_streaming(kernel, {1024, 1024}, device));
    EXPECT_TRUE(space_offers_streaming(kernel, {1024, 1028}, device));
  }
  // sum writes one float per row: no STREAM parameter at all.
  const kernel_definition& sum = find_kernel("sum");
  EXPECT_EQ(sum.find(backend_kind::cpu)->default_config.count("STREAM"), 0U);
}

TEST(RowKernelStreamingStores, AStreamValueOtherThanZeroOrOneIsRefused) {
  const device_ptr device = open_device(backend_kind::cpu);
  for (const std::string& name : streaming_row_kernels()) {
    const kernel_definition& kernel = find_kernel(name);
    const implementation& impl = *kernel.find(backend_kind::cpu);
    const shape& s = kernel.shapes.front();
    config cfg = impl.default_config;
    cfg["STREAM"] = 2;
    try {
      const bound_kernel bound(kernel, impl, device, s, kernel.make_inputs(s, 1), cfg);
      ADD_FAILURE() << name << ": STREAM = 2 was accepted";
    } catch (const error& e) {
      EXPECT_NE(std::string(e.what()).find(name + "/cpu: STREAM must be 0 or 1, got 2"), std::string::npos)
          << e.what();
    }
  }
}

}  // namespace
}  // namespace kbench
