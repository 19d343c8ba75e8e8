// The triad that `kbench run` times beside a large shape (triad_probe.hpp): it computes the triad with the
// store kind asked for, refuses bad arguments, and its bandwidth and the shape's share of it are read from
// the samples (suite::triad_turns, shape_result::triad_fraction), and travel from the worker as JSON.

#include <kbench/backends/cpu.hpp>
#include <kbench/bench.hpp>
#include <kbench/error.hpp>
#include <kbench/host_cache.hpp>
#include <kbench/stats.hpp>
#include <kbench/suite/shape_result.hpp>
#include <kbench/suite/triad_probe.hpp>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <string>
#include <vector>

namespace kbench {
using namespace suite;  // the suite's kernel API, unqualified
namespace {

TEST(TriadProbe, ComputesTheTriadWithTheStoreKindAskedFor) {
  constexpr std::size_t elements = 4100;  // [floats] small: a sanitizer build runs it too
  for (const std::string stores : {stores_normal, stores_non_temporal}) {
    const triad_probe probe = make_triad_probe(cpu::open_device(), stores, elements);
    EXPECT_EQ(probe.stores, stores);  // the cpu backend has both kinds
    EXPECT_DOUBLE_EQ(probe.bytes_per_call, 3.0 * elements * sizeof(float));
    call_result written;
    for (int call = 0; call < 2; ++call) written = probe.target.call();
    probe.target.barrier();
    ASSERT_EQ(written.outputs.size(), 1U);
    std::vector<float> a(elements, 0.0f);
    written.outputs[0]->read(a.data(), elements * sizeof(float));
    // From b = c = 1, every call writes a = 1 + 3 * 1.
    const auto wrong = std::find_if(a.begin(), a.end(), [](float v) { return v != 4.0f; });
    EXPECT_EQ(wrong, a.end()) << stores << ": a[" << (wrong - a.begin()) << "] = " << *wrong;
  }
}

TEST(TriadProbe, RefusesAnUnknownStoreKindAndPartialVectors) {
  EXPECT_THROW((void)make_triad_probe(cpu::open_device(), "fast", 4096), error);
  EXPECT_THROW((void)make_triad_probe(cpu::open_device(), stores_normal, 4094), error);
  EXPECT_THROW((void)make_triad_probe(cpu::open_device(), stores_normal, 0), error);
}

TEST(TriadProbe, OnlyShapesBeyondTheLastLevelCacheGetOne) {
  // Twice the cache the cpus have to themselves (not what a VM lists of its host's), at least 64 MiB.
  EXPECT_EQ(triad_probe_min_bytes(),
            std::max(64.0 * 1024 * 1024, 2.0 * static_cast<double>(last_level_cache_share_bytes())));
  EXPECT_EQ(triad_probe_min_bytes(1e6), 1e6);  // --triad-min-mib
}

suite::shape_result with_triad(std::vector<double> kbench_ms, double bytes_moved,
                               std::vector<double> triad_ms, double triad_bytes) {
  suite::shape_result r;
  r.bytes_moved = bytes_moved;
  r.kbench = suite::impl_result{};
  r.kbench->impl = "kbench";
  r.kbench->latency_ms = std::move(kbench_ms);
  r.triad = suite::triad_turns{std::move(triad_ms), triad_bytes, stores_non_temporal};
  return r;
}

TEST(TriadTurns, TheShareIsTheShapesBandwidthOverTheTriadsOfTheSameTurns) {
  // kbench: 1e9 bytes in a median of 20 ms = 50 GB/s; triad: 3e9 bytes in a median of 40 ms = 75 GB/s.
  const auto r = with_triad({25.0, 20.0, 19.0}, 1e9, {40.0, 39.0, 90.0}, 3e9);
  ASSERT_TRUE(r.triad->gbps().has_value());
  EXPECT_DOUBLE_EQ(*r.triad->gbps(), 75.0);
  ASSERT_TRUE(r.triad_fraction().has_value());
  EXPECT_DOUBLE_EQ(*r.triad_fraction(), 50.0 / 75.0);
}

TEST(TriadTurns, NoShareWithoutTheBytesTheSamplesOrTheTriad) {
  EXPECT_FALSE(with_triad({20.0}, 0, {40.0}, 3e9).triad_fraction().has_value());  // bytes unknown
  EXPECT_FALSE(with_triad({20.0}, 1e9, {}, 3e9).triad_fraction().has_value());    // triad not timed
  auto r = with_triad({20.0}, 1e9, {40.0}, 3e9);
  r.triad.reset();
  EXPECT_FALSE(r.triad_fraction().has_value());
}

TEST(TriadTurns, TravelsWithTheShapeResultAsJson) {
  const auto r = with_triad({2.0, 3.0}, 1e9, {4.0, 5.0, 6.0}, 3e9);
  const auto back = nlohmann::json(r).get<suite::shape_result>();
  ASSERT_TRUE(back.triad.has_value());
  EXPECT_EQ(back.triad->latency_ms, r.triad->latency_ms);
  EXPECT_DOUBLE_EQ(back.triad->bytes_per_call, 3e9);
  EXPECT_EQ(back.triad->stores, stores_non_temporal);
  auto without = r;
  without.triad.reset();
  EXPECT_FALSE(nlohmann::json(without).get<suite::shape_result>().triad.has_value());
}

}  // namespace
}  // namespace kbench
