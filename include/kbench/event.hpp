#pragma once
// An event marks one execution enqueued on a device: its completion status and its device timestamps.

#include <cstdint>
#include <memory>
#include <optional>

namespace kbench {

/// Device-side execution interval of one enqueued command, on the device's own clock.
struct device_interval {
  std::int64_t start_ns = 0;  // [nanoseconds, device clock]
  std::int64_t end_ns = 0;    // [nanoseconds, device clock]
  [[nodiscard]] double duration_ms() const { return static_cast<double>(end_ns - start_ns) * 1e-6; }
};

/// One execution on a device. The status query is the ground truth that the sync check relies on: after any
/// wait, is_complete() must be true, whatever the wait itself did.
class event {
 public:
  virtual ~event() = default;

  /// Non-blocking status query (clGetEventInfo, cuEventQuery, an atomic flag for the cpu worker).
  [[nodiscard]] virtual bool is_complete() const = 0;

  /// Blocks until the work is complete, using the backend's own wait (clWaitForEvents, cuEventSynchronize,
  /// ...).
  virtual void wait() = 0;

  /// The device's timestamps for this execution; nullopt while not complete or when the backend has none.
  [[nodiscard]] virtual std::optional<device_interval> interval() const = 0;

  /// Whether this execution's device gives timestamps at all. Work on a device without a clock (a JAX array
  /// on the host) is captured when it reports complete as the window closes; with a clock it must also carry
  /// its timestamps.
  [[nodiscard]] virtual bool has_device_clock() const { return true; }
};

using event_ptr = std::shared_ptr<event>;

/// An event for work that ran synchronously on the host (the torch baseline): complete from birth,
/// with the host's steady clock around the call as its interval.
[[nodiscard]] event_ptr make_completed_event(device_interval interval);

/// Blocks until `e` reports complete by polling its status, without trusting e.wait(). Used to drain work
/// after a sync violation so that it cannot leak into the next sample. Polls every `poll_us` microseconds.
void wait_by_polling(const event& e, int poll_us = 50);

}  // namespace kbench
