// measure() on the fake async device: a correct backend is valid; a no-op wait or barrier, native or injected
// with inject_sync_fault, is caught, counted and reported. Counts and flags only, never durations.

#include "fake_async_device.hpp"

#include <kbench/backends/cpu.hpp>
#include <kbench/fault_injection.hpp>
#include <kbench/measure.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <thread>

namespace kbench {
namespace {

using namespace std::chrono_literals;
using test_double::fake_async_device;

constexpr auto delay = 2ms;  // per execution on the fake device

/// 2 warm-up calls, 10 wall samples, 2 throughput batches of 10 calls: 30 calls dispatched in timed windows.
measure_options small_options() {
  measure_options o;
  o.repeat = 10;
  o.warmup = 2;
  o.throughput_calls = 10;
  o.throughput_batches = 2;
  return o;
}

bool has_warning(const measurement& m, const std::string& text) {
  return std::any_of(m.warnings.begin(), m.warnings.end(),
                     [&](const std::string& w) { return w.find(text) != std::string::npos; });
}

std::string all_warnings(const measurement& m) {
  std::string out;
  for (const std::string& w : m.warnings) {
    out += w + "\n";
  }
  return out;
}

TEST(Measure, CorrectSyncIsValidWithCompleteCapture) {
  fake_async_device device(delay);
  const measurement m = measure(device.target("correct"), small_options());
  EXPECT_EQ(m.name, "correct");
  EXPECT_EQ(m.result_sync_violations, 0);
  EXPECT_EQ(m.barrier_violations, 0);
  EXPECT_EQ(m.calls_dispatched, 30u);
  EXPECT_EQ(m.calls_captured, 30u);
  EXPECT_DOUBLE_EQ(m.capture_ratio(), 1.0);
  EXPECT_TRUE(m.valid()) << all_warnings(m);
  EXPECT_EQ(m.wall_ms.size(), 10u);
  EXPECT_EQ(m.throughput_ms.size(), 2u);
  EXPECT_EQ(m.device_ms.size(), 10u);
  EXPECT_EQ(m.wall.count, 10u);
  EXPECT_EQ(m.device.count, 10u);
  EXPECT_EQ(m.throughput.count, 2u);
  // Only a noise warning may appear on a loaded machine; nothing about synchronization or capture.
  EXPECT_FALSE(has_warning(m, "sync")) << all_warnings(m);
  EXPECT_FALSE(has_warning(m, "barrier")) << all_warnings(m);
  EXPECT_FALSE(has_warning(m, "capture")) << all_warnings(m);
  EXPECT_EQ(device.launched(), 2u + 30u);
}

TEST(Measure, NoopWaitIsCaught) {
  fake_async_device device(delay);
  device.set_noop_wait(true);
  const measurement m = measure(device.target(), small_options());
  EXPECT_GT(m.result_sync_violations, 0);
  EXPECT_EQ(m.barrier_violations, 0);  // the barrier itself is correct
  EXPECT_LT(m.calls_captured, m.calls_dispatched);
  EXPECT_FALSE(m.valid());
  EXPECT_TRUE(has_warning(m, "result syncs returned before the work finished: timings are invalid"))
      << all_warnings(m);
  // Each wall sample timed only the dispatch while the device worked 2 ms.
  EXPECT_TRUE(has_warning(m, "wall latency below device time")) << all_warnings(m);
  EXPECT_EQ(m.device_ms.size(), 10u);  // drained work still yields its device time
}

TEST(Measure, NoopBarrierIsCaughtAndCaptureIsIncomplete) {
  fake_async_device device(delay);
  device.set_noop_barrier(true);
  const measurement m = measure(device.target(), small_options());
  EXPECT_EQ(m.result_sync_violations, 0);
  EXPECT_GT(m.barrier_violations, 0);
  EXPECT_LT(m.calls_captured, m.calls_dispatched);
  EXPECT_EQ(m.calls_dispatched, 30u);
  EXPECT_LT(m.capture_ratio(), 1.0);
  EXPECT_FALSE(m.valid());
  EXPECT_TRUE(has_warning(m, "barriers returned with device work still running")) << all_warnings(m);
  EXPECT_TRUE(has_warning(m, "the timed window missed device work")) << all_warnings(m);
}

TEST(Measure, InjectedResultFaultOnCorrectBackend) {
  fake_async_device device(delay);
  const measurement m = measure(inject_sync_fault(device.target(), sync_fault::result), small_options());
  EXPECT_GT(m.result_sync_violations, 0);
  EXPECT_EQ(m.barrier_violations, 0);
  EXPECT_FALSE(m.valid());
}

TEST(Measure, InjectedBarrierFaultOnCorrectBackend) {
  fake_async_device device(delay);
  const measurement m = measure(inject_sync_fault(device.target(), sync_fault::barrier), small_options());
  EXPECT_EQ(m.result_sync_violations, 0);
  EXPECT_GT(m.barrier_violations, 0);
  EXPECT_LT(m.calls_captured, m.calls_dispatched);
  EXPECT_FALSE(m.valid());
}

TEST(Measure, InjectedBothFaultsOnCorrectBackend) {
  fake_async_device device(delay);
  const measurement m = measure(inject_sync_fault(device.target(), sync_fault::both), small_options());
  EXPECT_GT(m.result_sync_violations, 0);
  EXPECT_GT(m.barrier_violations, 0);
  EXPECT_GT(m.sync_violations(), m.result_sync_violations);
  EXPECT_LT(m.calls_captured, m.calls_dispatched);
  EXPECT_FALSE(m.valid());
}

TEST(Measure, RepeatAndThroughputCallsDefaultToComputeRepeat) {
  fake_async_device device(delay);
  measure_options o;
  o.repeat = 0;
  o.target_ms = 4;  // 4 ms / (>= 2 ms per call) <= 2, clamped up to compute_repeat's minimum of 10
  o.warmup = 1;
  o.throughput_calls = 0;
  o.throughput_batches = 1;
  const measurement m = measure(device.target(), o);
  EXPECT_EQ(m.wall_ms.size(), 10u);
  EXPECT_EQ(m.calls_dispatched, 10u + 10u);  // throughput batch of `repeat` calls
  EXPECT_TRUE(m.valid()) << all_warnings(m);
}

/// A target on the real cpu backend: each call is a 1 ms kernel on its asynchronous stream.
bench_target cpu_sleep_target(const std::shared_ptr<cpu::cpu_device>& device) {
  return bench_target{
      "cpu-sleep",
      [device] {
        return call_result{
            {device->launch([](const cpu::parallel_context&) { std::this_thread::sleep_for(1ms); })}, {}};
      },
      [device] { device->barrier(); },
      {}};
}

TEST(Measure, RealCpuBackendIsValidAndItsInjectedFaultsAreCaught) {
  const std::shared_ptr<cpu::cpu_device> device = cpu::open_device();
  const measurement correct = measure(cpu_sleep_target(device), small_options());
  EXPECT_EQ(correct.sync_violations(), 0);
  EXPECT_EQ(correct.calls_captured, correct.calls_dispatched);
  EXPECT_TRUE(correct.valid()) << all_warnings(correct);

  const measurement broken =
      measure(inject_sync_fault(cpu_sleep_target(device), sync_fault::both), small_options());
  EXPECT_GT(broken.result_sync_violations, 0);
  EXPECT_GT(broken.barrier_violations, 0);
  EXPECT_LT(broken.calls_captured, broken.calls_dispatched);
  EXPECT_FALSE(broken.valid());
}

TEST(Measure, CaptureRatioAndValidity) {
  measurement m;
  EXPECT_DOUBLE_EQ(m.capture_ratio(), 0.0);
  EXPECT_FALSE(m.valid());  // nothing measured is not a valid measurement
  m.calls_dispatched = 1010;
  m.calls_captured = 90;  // the TPU trace
  EXPECT_DOUBLE_EQ(m.capture_ratio(), 90.0 / 1010.0);
  EXPECT_FALSE(m.valid());
  m.calls_captured = 1010;
  EXPECT_TRUE(m.valid());
  m.barrier_violations = 1;
  EXPECT_FALSE(m.valid());
  EXPECT_EQ(m.sync_violations(), 1);
}

}  // namespace
}  // namespace kbench
