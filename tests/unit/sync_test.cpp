// Sync checks, capture counting and fault injection, on hand-completed events and on the fake async device.

#include "fake_async_device.hpp"

#include <kbench/error.hpp>
#include <kbench/fault_injection.hpp>
#include <kbench/sync.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace kbench {
namespace {

using namespace std::chrono_literals;
using test_double::fake_async_device;
using test_double::manual_event;

constexpr auto short_delay = 3ms;  // per execution on the fake device: long enough to outlast a dispatch

call_result result_of(std::vector<event_ptr> events) {
  return call_result{std::move(events), {}};
}

TEST(SyncCheck, CountsEventsStillRunningAfterTheWait) {
  auto done = std::make_shared<manual_event>(true, device_interval{0, 1'000'000});
  auto running = std::make_shared<manual_event>(false);
  const call_result r = result_of({done, running});
  EXPECT_EQ(sync_and_check(r), 1);
  EXPECT_EQ(done->waits(), 1);  // every output is waited on, not just the first
  EXPECT_EQ(running->waits(), 1);
}

TEST(SyncCheck, CorrectWaitOnFakeDeviceHasNoViolation) {
  fake_async_device device(short_delay);
  const call_result r = result_of({device.launch(), device.launch()});
  EXPECT_EQ(sync_and_check(r), 0);
  EXPECT_EQ(count_captured({&r, 1}), 1u);
}

TEST(SyncCheck, NoopWaitOnFakeDeviceIsCaught) {
  fake_async_device device(short_delay);
  device.set_noop_wait(true);
  device.set_paused(true);  // the execution cannot finish before the check, however threads are scheduled
  const call_result r = result_of({device.launch()});
  EXPECT_EQ(sync_and_check(r), 1);
  EXPECT_EQ(count_captured({&r, 1}), 0u);
  device.set_paused(false);
  drain({&r, 1});  // polls the status; the no-op wait cannot fool it
  EXPECT_TRUE(r.events[0]->is_complete());
  EXPECT_EQ(count_captured({&r, 1}), 1u);
}

TEST(BarrierCheck, NoopBarrierLeavesWorkRunning) {
  fake_async_device device(short_delay);
  bench_target target = device.target();
  std::vector<call_result> results;
  for (int i = 0; i < 5; ++i) {
    results.push_back(target.call());
  }
  EXPECT_EQ(barrier_and_check(target, results), 0);
  EXPECT_EQ(count_captured(results), 5u);

  device.set_noop_barrier(true);
  device.set_paused(true);
  results.clear();
  for (int i = 0; i < 5; ++i) {
    results.push_back(target.call());
  }
  EXPECT_EQ(barrier_and_check(target, results), 5);
  EXPECT_EQ(count_captured(results), 0u);
  device.set_paused(false);
  drain(results);
  EXPECT_EQ(count_captured(results), 5u);
}

TEST(BarrierCheck, WithoutABarrierWaitsOnEveryResult) {
  fake_async_device device(short_delay);
  bench_target target = device.target();
  target.barrier = nullptr;
  std::vector<call_result> results;
  for (int i = 0; i < 3; ++i) {
    results.push_back(target.call());
  }
  EXPECT_EQ(barrier_and_check(target, results), 0);
  EXPECT_EQ(count_captured(results), 3u);
}

TEST(Capture, CountsCallsWhoseEveryExecutionHasTimestamps) {
  const device_interval iv{0, 2'000'000};
  std::vector<call_result> results;
  results.push_back(result_of({std::make_shared<manual_event>(true, iv)}));            // captured
  results.push_back(result_of({std::make_shared<manual_event>(false)}));               // still running
  results.push_back(result_of({std::make_shared<manual_event>(true, std::nullopt)}));  // no timestamps
  results.push_back(result_of({std::make_shared<manual_event>(true, iv),
                               std::make_shared<manual_event>(false)}));  // one of two running
  results.push_back(result_of(
      {std::make_shared<manual_event>(true, iv), std::make_shared<manual_event>(true, iv)}));  // captured
  results.push_back(result_of({}));  // nothing to show
  EXPECT_EQ(count_captured(results), 2u);
}

TEST(Capture, WorkWithoutADeviceClockIsCapturedWhenComplete) {
  // A device that gives no timestamps at all (a JAX array on the host): completion as the window closes is
  // all there is to show, and it must still be shown.
  std::vector<call_result> results;
  results.push_back(result_of({std::make_shared<manual_event>(true, std::nullopt, false)}));   // captured
  results.push_back(result_of({std::make_shared<manual_event>(false, std::nullopt, false)}));  // running
  results.push_back(
      result_of({std::make_shared<manual_event>(true, std::nullopt, false),
                 std::make_shared<manual_event>(true, std::nullopt)}));  // one lacks its timestamps
  EXPECT_EQ(count_captured(results), 1u);
  EXPECT_FALSE(device_time_ms(results[0]).has_value());
}

TEST(DeviceTime, SumsTheIntervalsOfACall) {
  const call_result two = result_of({std::make_shared<manual_event>(true, device_interval{0, 1'500'000}),
                                     std::make_shared<manual_event>(true, device_interval{10, 500'010})});
  const std::optional<double> ms = device_time_ms(two);
  ASSERT_TRUE(ms.has_value());
  EXPECT_NEAR(*ms, 2.0, 1e-12);  // 1.5 ms + 0.5 ms

  const call_result partial = result_of({std::make_shared<manual_event>(true, device_interval{0, 1'000'000}),
                                         std::make_shared<manual_event>(false)});
  EXPECT_FALSE(device_time_ms(partial).has_value());
  EXPECT_FALSE(device_time_ms(result_of({})).has_value());
}

TEST(SyncFault, ParsesEveryName) {
  for (sync_fault f : {sync_fault::none, sync_fault::result, sync_fault::barrier, sync_fault::both}) {
    EXPECT_EQ(parse_sync_fault(to_string(f)), f);
  }
  EXPECT_EQ(to_string(sync_fault::barrier), "barrier");
}

TEST(SyncFault, UnknownNameIsAUsageErrorListingTheChoices) {
  try {
    (void)parse_sync_fault("resutl");
    FAIL() << "no usage_error thrown";
  } catch (const usage_error& e) {
    EXPECT_EQ(std::string(e.what()), "unknown sync fault 'resutl' (valid: none, result, barrier, both)");
  }
  EXPECT_THROW((void)parse_sync_fault(""), usage_error);
  EXPECT_THROW((void)parse_sync_fault("Result"), usage_error);
}

TEST(SyncFault, NoneLeavesTheTargetCorrect) {
  fake_async_device device(short_delay);
  const bench_target target = inject_sync_fault(device.target(), sync_fault::none);
  const call_result r = target.call();
  EXPECT_EQ(sync_and_check(r), 0);
  std::vector<call_result> results{target.call(), target.call()};
  EXPECT_EQ(barrier_and_check(target, results), 0);
}

TEST(SyncFault, InjectedResultFaultIsCaughtOnACorrectBackend) {
  fake_async_device device(short_delay);
  const bench_target target = inject_sync_fault(device.target(), sync_fault::result);
  device.set_paused(true);
  const call_result r = target.call();
  EXPECT_EQ(sync_and_check(r), 1);
  EXPECT_FALSE(device_time_ms(r).has_value());  // no timestamps yet: the work is still running
  device.set_paused(false);
  drain({&r, 1});
  EXPECT_TRUE(device_time_ms(r).has_value());  // status and timestamps forward to the real event
  // The barrier is still the real one.
  std::vector<call_result> results{target.call(), target.call(), target.call()};
  EXPECT_EQ(barrier_and_check(target, results), 0);
}

TEST(SyncFault, InjectedBarrierFaultIsCaughtOnACorrectBackend) {
  fake_async_device device(short_delay);
  const bench_target target = inject_sync_fault(device.target(), sync_fault::barrier);
  device.set_paused(true);
  std::vector<call_result> results{target.call(), target.call(), target.call()};
  EXPECT_EQ(barrier_and_check(target, results), 3);
  device.set_paused(false);
  drain(results);
  const call_result r = target.call();
  EXPECT_EQ(sync_and_check(r), 0);  // the per-result wait is still the real one
}

TEST(SyncFault, InjectedBothFaultsAreCaught) {
  fake_async_device device(short_delay);
  const bench_target target = inject_sync_fault(device.target(), sync_fault::both);
  device.set_paused(true);
  const call_result r = target.call();
  EXPECT_EQ(sync_and_check(r), 1);
  std::vector<call_result> results{target.call(), target.call(), target.call()};
  EXPECT_EQ(barrier_and_check(target, results), 3);
  device.set_paused(false);
  drain(results);
  drain({&r, 1});
}

TEST(SyncFault, BarrierFaultBreaksEvenATargetWithoutBarrier) {
  // Without a barrier the check falls back to waiting on every result; the fault must replace that too.
  fake_async_device device(short_delay);
  bench_target plain = device.target();
  plain.barrier = nullptr;
  const bench_target target = inject_sync_fault(plain, sync_fault::barrier);
  device.set_paused(true);
  std::vector<call_result> results{target.call(), target.call(), target.call()};
  EXPECT_EQ(barrier_and_check(target, results), 3);
  device.set_paused(false);
  drain(results);
}

}  // namespace
}  // namespace kbench
