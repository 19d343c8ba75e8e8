#pragma once
// Polling before blocking, for the cpu backend's threads (the host waiting for an event, the dispatcher
// waiting for a launch, the pool's helpers waiting for a loop and its caller waiting for their chunks).
// Waking a thread blocked on a futex costs tens of microseconds on this VM, more than a small kernel, so each
// of them polls for a short budget first, like CUDA's spin-then-block synchronization.
//
// Each poll yields the core (sched_yield): the thread being waited for is often on the same core (2 cores,
// 3 busy threads: the host, the dispatcher, a helper). Polling with the pause instruction for the first 2 us
// instead was measured 2.5x slower for a 2 us kernel (kbench measure add [128,128], 3 runs each: wall 0.0081-
// 0.0092 ms against 0.0034-0.0036 ms).

#include <chrono>
#include <thread>

namespace kbench::cpu {

/// [us] the polling budget of every cpu backend thread before it blocks.
inline constexpr auto poll_budget = std::chrono::microseconds(50);

/// Polls `ready` for at most poll_budget; returns its last value.
template <class Ready>
bool poll_until(const Ready& ready) {
  const auto until = std::chrono::steady_clock::now() + poll_budget;
  while (!ready()) {
    if (std::chrono::steady_clock::now() >= until) return ready();
    std::this_thread::yield();
  }
  return true;
}

}  // namespace kbench::cpu
