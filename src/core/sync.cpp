// Synchronization with verification (see sync.hpp): every wait is followed by a status query of the awaited
// work, because the status query is the ground truth and the wait is what may be broken.

#include <kbench/sync.hpp>

namespace kbench {
namespace {

/// Events of `result` that do not report complete right now. A null event is skipped: there is no work to
/// wait for behind it.
int count_incomplete(const call_result& result) {
  int incomplete = 0;
  for (const event_ptr& e : result.events) {
    if (e && !e->is_complete()) {
      ++incomplete;
    }
  }
  return incomplete;
}

}  // namespace

int sync_and_check(const call_result& result) {
  for (const event_ptr& e : result.events) {
    if (e) {
      e->wait();
    }
  }
  // Queried after every wait has returned, so that an early return of any of them is seen.
  return count_incomplete(result);
}

int barrier_and_check(const bench_target& target, std::span<const call_result> results) {
  if (target.barrier) {
    target.barrier();
  } else {
    // No device-wide barrier: waiting on every result is the closest substitute (docs/measurement.md).
    for (const call_result& r : results) {
      for (const event_ptr& e : r.events) {
        if (e) {
          e->wait();
        }
      }
    }
  }
  int incomplete = 0;
  for (const call_result& r : results) {
    incomplete += count_incomplete(r);
  }
  return incomplete;
}

std::size_t count_captured(std::span<const call_result> results) {
  // Counted per call: a call is captured when every execution it enqueued has completed and carries device
  // timestamps (or has no device clock to give them). A call without events has nothing to show that its
  // work ran inside the window.
  std::size_t captured = 0;
  for (const call_result& r : results) {
    if (r.events.empty()) {
      continue;
    }
    bool all = true;
    for (const event_ptr& e : r.events) {
      if (!e || !e->is_complete() || (e->has_device_clock() && !e->interval())) {
        all = false;
        break;
      }
    }
    if (all) {
      ++captured;
    }
  }
  return captured;
}

void drain(std::span<const call_result> results) {
  for (const call_result& r : results) {
    for (const event_ptr& e : r.events) {
      if (e) {
        wait_by_polling(*e);
      }
    }
  }
}

std::optional<double> device_time_ms(const call_result& result) {
  if (result.events.empty()) {
    return std::nullopt;
  }
  double total_ms = 0;
  for (const event_ptr& e : result.events) {
    const std::optional<device_interval> interval = e ? e->interval() : std::nullopt;
    if (!interval) {
      return std::nullopt;
    }
    total_ms += interval->duration_ms();
  }
  return total_ms;
}

}  // namespace kbench
