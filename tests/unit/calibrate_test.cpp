// `kbench calibrate`'s cache and measurement: entries round-trip per device, a cache file that does not parse
// is moved aside rather than overwritten, and the cpu calibration yields a best and a worst round.

#include "support/scratch_dir.hpp"

#include <kbench/backends/cpu.hpp>
#include <kbench/suite/calibrate.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

namespace kbench {
using namespace suite;  // the suite's kernel API, unqualified
namespace {

namespace fs = std::filesystem;

/// Points $KBENCH_CACHE_DIR at a fresh scratch directory for one test, and restores it afterwards.
class calibration_cache : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const char* old = std::getenv("KBENCH_CACHE_DIR")) m_saved = old;
    m_dir = test::scratch_dir("calibrate-test-" +
                              std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    ASSERT_EQ(setenv("KBENCH_CACHE_DIR", m_dir.c_str(), 1), 0);
  }
  void TearDown() override {
    if (m_saved) {
      setenv("KBENCH_CACHE_DIR", m_saved->c_str(), 1);
    } else {
      unsetenv("KBENCH_CACHE_DIR");
    }
  }
  [[nodiscard]] const fs::path& dir() const { return m_dir; }

 private:
  fs::path m_dir;
  std::optional<std::string> m_saved;
};

std::int64_t now_s() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

calibration sample(const std::string& device, double triad) {
  calibration c;
  c.backend = "opencl";
  c.device = device;
  c.elements = 1024;
  c.copy_gbps = triad * 0.9;
  c.triad_gbps = triad;
  c.copy_low_gbps = triad * 0.5;
  c.triad_low_gbps = triad * 0.6;
  c.rounds = 5;
  c.copy_stores = stores_normal;
  c.triad_stores = stores_non_temporal;
  c.timestamp = now_s();  // a cached calibration older than calibration_max_age_days is not used
  return c;
}

device_info opencl_device(const std::string& name) {
  device_info info;
  info.backend = backend_kind::opencl;
  info.name = name;
  return info;
}

std::string read_all(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::vector<fs::path> corrupt_copies(const fs::path& dir) {
  std::vector<fs::path> found;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().filename().string().rfind("calibration.json.corrupt-", 0) == 0)
      found.push_back(entry.path());
  }
  return found;
}

TEST_F(calibration_cache, EntriesRoundTripPerDeviceAndKeepEachOther) {
  EXPECT_FALSE(cached_calibration(opencl_device("gpu-a")).has_value());
  store_calibration(sample("gpu-a", 100));
  store_calibration(sample("gpu-b", 200));
  store_calibration(sample("gpu-a", 150));  // adds to gpu-a's calibrations only

  const auto a = cached_calibration(opencl_device("gpu-a"));
  const auto b = cached_calibration(opencl_device("gpu-b"));
  ASSERT_TRUE(a.has_value());
  ASSERT_TRUE(b.has_value());
  EXPECT_DOUBLE_EQ(a->triad_gbps, 150);
  EXPECT_DOUBLE_EQ(a->copy_low_gbps, 75);
  EXPECT_DOUBLE_EQ(a->triad_low_gbps, 90);
  EXPECT_EQ(a->rounds, 5);
  EXPECT_EQ(a->copy_stores, stores_normal);
  EXPECT_EQ(a->triad_stores, stores_non_temporal);
  EXPECT_DOUBLE_EQ(b->triad_gbps, 200);
  EXPECT_FALSE(cached_calibration(opencl_device("gpu-c")).has_value());
}

TEST_F(calibration_cache, AnEntryFromBeforeRoundsReadsAsOneRoundWithoutSpread) {
  std::ofstream(dir() / "calibration.json")
      << R"({"opencl|old": {"backend": "opencl", "device": "old", "elements": 8, "copy_gbps": 10.0,
             "triad_gbps": 12.0, "timestamp": )"
      << now_s() << "}}";
  const auto c = cached_calibration(opencl_device("old"));
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->rounds, 1);
  EXPECT_DOUBLE_EQ(c->triad_low_gbps, 12.0);
  EXPECT_DOUBLE_EQ(c->copy_low_gbps, 10.0);
  EXPECT_EQ(c->triad_stores, stores_normal) << "an old entry measured normal stores only";
  EXPECT_EQ(c->copy_stores, stores_normal);
}

TEST_F(calibration_cache, AWholeNumberOutOfRangeMakesTheEntryMalformedNotUndefined) {
  // The fuzzer's find: 3.4e67 elements, which nlohmann converts to an unsigned with undefined behaviour.
  for (const std::string elements : {"3.4e67", "-8", "8.5", "\"8\""}) {
    std::ofstream(dir() / "calibration.json")
        << R"({"opencl|odd": {"backend": "opencl", "device": "odd", "copy_gbps": 10.0, "triad_gbps": 12.0,
               "elements": )"
        << elements << R"(, "timestamp": )" << now_s() << "}}";
    EXPECT_FALSE(cached_calibration(opencl_device("odd")).has_value()) << elements;
  }
}

TEST_F(calibration_cache, ThePeakIsTheBestOfTheCalibrationsOfTheLastMonth) {
  store_calibration(sample("gpu-a", 100));
  store_calibration(sample("gpu-a", 150));
  store_calibration(sample("gpu-a", 120));  // a busy stretch: the peak stays 150
  auto c = cached_calibration(opencl_device("gpu-a"));
  ASSERT_TRUE(c.has_value());
  EXPECT_DOUBLE_EQ(c->triad_gbps, 150);
  EXPECT_EQ(c->calibrations, 3);
  EXPECT_EQ(c->source, "kbench calibrate");

  // A calibration older than the limit no longer counts, however high.
  calibration old = sample("gpu-b", 300);
  old.timestamp = now_s() - static_cast<std::int64_t>((calibration_max_age_days + 1) * 86400);
  store_calibration(old);
  EXPECT_FALSE(cached_calibration(opencl_device("gpu-b")).has_value()) << "only an expired one: calibrate";
  store_calibration(sample("gpu-b", 100));
  c = cached_calibration(opencl_device("gpu-b"));
  ASSERT_TRUE(c.has_value());
  EXPECT_DOUBLE_EQ(c->triad_gbps, 100);
  EXPECT_EQ(c->calibrations, 1);

  // At most calibrations_kept are kept: the oldest go first.
  store_calibration(sample("gpu-c", 500));
  for (std::size_t i = 0; i < calibrations_kept; ++i) store_calibration(sample("gpu-c", 10));
  c = cached_calibration(opencl_device("gpu-c"));
  ASSERT_TRUE(c.has_value());
  EXPECT_DOUBLE_EQ(c->triad_gbps, 10);
  EXPECT_EQ(c->calibrations, static_cast<int>(calibrations_kept));
}

TEST_F(calibration_cache, ATriadAboveThePeakRaisesIt) {
  store_calibration(sample("gpu-a", 100));
  const auto peak = cached_calibration(opencl_device("gpu-a"));
  ASSERT_TRUE(peak.has_value());
  EXPECT_FALSE(raise_peak(*peak, 90, "same-turns triad beside add [4096,4096]").has_value());
  EXPECT_DOUBLE_EQ(cached_calibration(opencl_device("gpu-a"))->triad_gbps, 100);
  const auto raised = raise_peak(*peak, 130, "same-turns triad beside add [4096,4096]");
  ASSERT_TRUE(raised.has_value());
  EXPECT_DOUBLE_EQ(raised->triad_gbps, 130);
  const auto cached = cached_calibration(opencl_device("gpu-a"));
  ASSERT_TRUE(cached.has_value());
  EXPECT_DOUBLE_EQ(cached->triad_gbps, 130);
  EXPECT_EQ(cached->source, "same-turns triad beside add [4096,4096]");
  EXPECT_DOUBLE_EQ(cached->copy_gbps, peak->copy_gbps);
  EXPECT_EQ(cached->calibrations, 2);
}

TEST_F(calibration_cache, ACorruptFileIsMovedAsideWithItsBytesNeverOverwritten) {
  const std::string garbage = R"({"opencl|gpu-a": {"backend": "opencl", "triad_gbps": 1)";  // truncated
  std::ofstream(dir() / "calibration.json") << garbage;
  EXPECT_FALSE(cached_calibration(opencl_device("gpu-a")).has_value());
  EXPECT_EQ(read_all(dir() / "calibration.json"), garbage) << "reading must leave the file as it is";

  store_calibration(sample("gpu-b", 200));

  const auto copies = corrupt_copies(dir());
  ASSERT_EQ(copies.size(), 1u);
  EXPECT_EQ(read_all(copies.front()), garbage);
  const auto b = cached_calibration(opencl_device("gpu-b"));
  ASSERT_TRUE(b.has_value());
  EXPECT_DOUBLE_EQ(b->triad_gbps, 200);
}

TEST_F(calibration_cache, ACpuCalibrationReportsItsBestAndWorstRound) {
  // 1 Mi floats (4 MiB per array): small enough for a sanitizer build; only the bookkeeping is checked.
  const calibration c = calibrate_device(cpu::open_device(), std::size_t{1} << 20);
  EXPECT_EQ(c.backend, "cpu");
  EXPECT_EQ(c.elements, std::size_t{1} << 20);
  EXPECT_EQ(c.rounds, 5);
  EXPECT_TRUE(std::isfinite(c.copy_gbps) && std::isfinite(c.triad_gbps));
  EXPECT_GT(c.copy_low_gbps, 0);
  EXPECT_GT(c.triad_low_gbps, 0);
  EXPECT_LE(c.copy_low_gbps, c.copy_gbps);
  EXPECT_LE(c.triad_low_gbps, c.triad_gbps);
  for (const std::string& stores : {c.copy_stores, c.triad_stores}) {
    EXPECT_TRUE(stores == stores_normal || stores == stores_non_temporal) << stores;
  }
  EXPECT_GT(c.timestamp, 0);
}

}  // namespace
}  // namespace kbench
