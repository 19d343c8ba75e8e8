#pragma once
// Polling before blocking, for the cpu backend's threads (the host waiting for an event, the dispatcher
// waiting for a launch, the pool's helpers waiting for a loop and its caller waiting for their chunks).
// Waking a thread blocked on a futex costs tens of microseconds on this VM, more than a small kernel, so each
// of them polls for a short budget first, like CUDA's spin-then-block synchronization.
//
// Between polls a thread yields its core (sched_yield) where a thread it waits for may need the same core:
// with binding off (KBENCH_CPU_BIND=0) any two threads may share one, and polling with pause there made
// small kernels slower (docs/code-figures.md). Where nobody it waits for needs its core it spins on the
// pause instruction instead,

// since a yield is a system call and the one in flight when the awaited change lands delays the poll that
// sees it: the dispatcher on its own bound cpu, and the host, which keeps off the dispatcher's cpu
// (placement.hpp) and runs the chunks of the helper on its own cpu itself (thread_pool::help). The host,
// whose wait is inside the timed window, spins for longer than the budget (host_spin_limit).

#include <chrono>
#include <thread>
#include <type_traits>

namespace kbench::cpu {

/// [us] the polling budget of every cpu backend thread before it blocks.
inline constexpr auto poll_budget = std::chrono::microseconds(50);

/// [ms] how long a host waiting for a kernel spins while no thread of the pool needs its cpu, before it
/// blocks (cpu_stream.cpp). Blocking after poll_budget put a wake-up into the wall latency of every kernel
/// longer than that (on this VM probably the wake-up of an idle vCPU; docs/code-figures.md). Beyond this
/// limit such a wake-up is a small fraction of the kernel, and a host does not burn a core for seconds on a
/// long or hung kernel.

inline constexpr auto host_spin_limit = std::chrono::milliseconds(20);

/// Tells the core that this thread spins (x86 pause, Arm yield): it saves power and lets the core's other
/// hardware thread run, without giving the core up.
inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__) || defined(__arm__)
  asm volatile("yield" ::: "memory");
#endif
}

/// Polls `ready` for at most poll_budget; returns its last value. Calls `between_polls()` between polls: it
/// yields the core, spins (cpu_relax) or does some other work. A `between_polls` that returns true did a
/// piece of the awaited work itself (the host running a chunk of the kernel), and the budget starts again
/// after it: the budget is for waiting, and a host that spent it on a chunk would otherwise block just before
/// the kernel ends and pay a futex wake-up inside the timed window (docs/code-figures.md).

template <class Ready, class BetweenPolls>
bool poll_until(const Ready& ready, const BetweenPolls& between_polls) {
  auto until = std::chrono::steady_clock::now() + poll_budget;
  while (!ready()) {
    if (std::chrono::steady_clock::now() >= until) return ready();
    if constexpr (std::is_same_v<decltype(between_polls()), bool>) {
      if (between_polls()) until = std::chrono::steady_clock::now() + poll_budget;
    } else {
      between_polls();
    }
  }
  return true;
}

/// Polls `ready` for at most poll_budget, yielding the core between polls; returns its last value.
template <class Ready>
bool poll_until(const Ready& ready) {
  return poll_until(ready, [] { std::this_thread::yield(); });
}

}  // namespace kbench::cpu
