// When the three measures of one implementation disagree (suite/shape_result.hpp: measures_disagreement):
// a throughput far above the interleaved latency, or a device time above it, is reported, never passed over.

#include <kbench/suite/shape_result.hpp>

#include <gtest/gtest.h>

namespace kbench::suite {
namespace {

impl_result timed(std::vector<double> latency, std::vector<double> throughput, std::vector<double> device) {
  impl_result r;
  r.impl = "kbench";
  r.latency_ms = std::move(latency);
  r.throughput_ms = std::move(throughput);
  r.device_ms = std::move(device);
  return r;
}

TEST(MeasuresDisagreement, AgreeingMeasuresSayNothing) {
  EXPECT_EQ(timed({1.0, 1.0, 1.1}, {0.9, 1.0}, {0.95, 0.97}).measures_disagreement(), "");
  EXPECT_EQ(timed({}, {}, {}).measures_disagreement(), "");  // nothing timed
}

TEST(MeasuresDisagreement, AThroughputFarAboveTheLatencyIsReported) {
  const std::string why = timed({0.0027, 0.0027, 0.0027}, {0.0289}, {0.0025}).measures_disagreement();
  EXPECT_NE(why.find("measures disagree: throughput 0.0289 ms per call is 10.7x the latency 0.0027 ms"),
            std::string::npos)
      << why;
  EXPECT_EQ(why.find("device time"), std::string::npos) << why;
}

TEST(MeasuresDisagreement, ADeviceTimeAboveTheLatencyIsReported) {
  // torch add [256,256] in one report: device 0.524 ms against a latency of 0.0075 ms.
  const std::string why = timed({0.0075, 0.0075}, {0.0076}, {0.524, 0.524}).measures_disagreement();
  EXPECT_NE(why.find("device time 0.524 ms is 69.9x the latency 0.0075 ms"), std::string::npos) << why;
}

TEST(MeasuresDisagreement, DifferencesBelowTheFloorAreNoise) {
  // 3x, but 1 us apart: a timer tick and a scheduler wake-up, not a disagreement.
  EXPECT_EQ(timed({0.0005}, {0.0015}, {0.0014}).measures_disagreement(), "");
}

}  // namespace
}  // namespace kbench::suite
