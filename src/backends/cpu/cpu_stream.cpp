#include "backends/cpu/cpu_stream.hpp"

#include "backends/cpu/placement.hpp"
#include "backends/cpu/poll.hpp"

#include <sched.h>

#include <chrono>
#include <thread>
#include <utility>

namespace kbench::cpu {

namespace {
std::int64_t steady_now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

/// The host's poll before it blocks (poll.hpp): a futex wake-up would land inside every timed window. It
/// first steps off the dispatcher's cpu, where the two would take turns at every launch (placement.hpp).
/// Between polls it runs the chunks of the kernel's parallel loop that belong to a helper on its own cpu
/// (thread_pool::help), so that the two do not take turns on the core either; the poll budget starts again
/// after each such chunk. It yields the core to a thread that runs such a chunk, and blocks when that goes on
/// for poll_budget, which leaves the core to the chunk. When no thread of the pool runs on its cpu it spins,
/// for up to host_spin_limit: nobody it waits for needs that core, and a helper that merely polls for the
/// next loop gets it when the host is done. With binding off, the host yields between polls, helps nobody
/// and blocks after poll_budget.
template <class Ready>
bool host_poll(const Ready& ready, int dispatcher_cpu, thread_pool& pool) {
  step_off_cpu(dispatcher_cpu);
  if (dispatcher_cpu < 0) return poll_until(ready);
  using clock = std::chrono::steady_clock;
  const auto spin_until = clock::now() + host_spin_limit;
  auto yield_until = clock::time_point::max();  // set when the host starts yielding to a chunk on its cpu
  for (unsigned polls = 1; !ready(); ++polls) {
    switch (pool.help(sched_getcpu())) {
      case thread_pool::help_result::ran_a_chunk:
        yield_until = clock::time_point::max();  // work, not waiting: the poll budget starts again
        break;
      case thread_pool::help_result::a_chunk_runs_here: {
        const auto now = clock::now();
        if (yield_until == clock::time_point::max()) {
          yield_until = now + poll_budget;
        } else if (now >= yield_until) {
          return ready();
        }
        std::this_thread::yield();
        break;
      }
      case thread_pool::help_result::nothing_to_do:
        yield_until = clock::time_point::max();
        cpu_relax();
        // The clock every 64 polls (a few microseconds), to keep each poll short.
        if (polls % 64 == 0 && clock::now() >= spin_until) return ready();
        break;
    }
  }
  return true;
}

}  // namespace

void cpu_event::wait() {
  if (host_poll([this] { return m_complete.load(std::memory_order_acquire); }, m_dispatcher_cpu, m_pool)) {
    return;
  }
  m_complete.wait(false, std::memory_order_acquire);
}

std::optional<device_interval> cpu_event::interval() const {
  if (!is_complete() || m_failed) return std::nullopt;  // the fields were written before m_complete
  return device_interval{m_start_ns, m_end_ns};
}

void cpu_event::finish(std::int64_t start_ns, std::int64_t end_ns, bool failed) {
  m_start_ns = start_ns;
  m_end_ns = end_ns;
  m_failed = failed;
  m_complete.store(true, std::memory_order_release);
  // No mutex: a waiter that polled and then slept is woken by the atomic's notify, which makes no system
  // call when nobody sleeps (the common case: the host polls, poll.hpp).
  m_complete.notify_all();
}

cpu_stream::cpu_stream(thread_pool& pool)
    : m_pool(pool),
      m_dispatcher_cpu(cpu_for_pool_thread(0)),  // it runs chunk 0 of every parallel loop
      m_slots(std::make_unique<slot[]>(capacity)),
      m_dispatcher([this] { dispatch_loop(); }) {}

cpu_stream::~cpu_stream() {
  // The dispatcher runs what is queued, then sees the stop (the flag while it polls, the bit while it
  // sleeps) and returns.
  m_stopping.store(true, std::memory_order_relaxed);
  m_published.fetch_or(stop_bit, std::memory_order_seq_cst);
  m_published.notify_all();
  m_dispatcher.join();
}

event_ptr cpu_stream::enqueue(cpu_kernel kernel) {
  auto done = std::make_shared<cpu_event>(m_dispatcher_cpu, m_pool);
  std::lock_guard lock(m_enqueue_mutex);
  const std::uint64_t index = m_published.load(std::memory_order_relaxed) & ~stop_bit;
  // The slot's last kernel (launch index - capacity) must have run; m_finished is read only when what was
  // seen of it does not show that.
  if (index >= capacity && index - capacity + 1 > m_finished_seen) {
    wait_until_finished(index - capacity + 1);
    m_finished_seen = m_finished.load(std::memory_order_acquire);
  }
  slot& s = m_slots[index % capacity];
  s.done = std::move(done);  // drops the slot's last event here, on the host, which allocated it
  s.kernel = std::move(kernel);
  event_ptr result = s.done;
  s.ready.store(index + 1, std::memory_order_release);  // a polling dispatcher starts from here
  m_published.store(index + 1, std::memory_order_seq_cst);
  // seq_cst pairs with the dispatcher's store of m_dispatcher_sleeping and load of m_published: either it
  // sees this launch before it sleeps, or this sees it asleep and wakes it.
  if (m_dispatcher_sleeping.load(std::memory_order_seq_cst)) m_published.notify_one();
  return result;
}

void cpu_stream::wait_until_finished(std::uint64_t count) {
  // Polls as long as the dispatcher keeps finishing launches: the poll budget is for one kernel, and a
  // barrier after many short ones (kbench measure's throughput window) would otherwise block with most of
  // the queue still to run, and the wake-up came late (docs/code-figures.md). A kernel that runs for longer
  // than host_spin_limit still lets the host block.

  for (std::uint64_t seen = m_finished.load(std::memory_order_acquire); seen < count;) {
    const bool moved = host_poll(
        [&] {
          const std::uint64_t now = m_finished.load(std::memory_order_acquire);
          return now >= count || now != seen;
        },
        m_dispatcher_cpu, m_pool);
    if (!moved) break;
    seen = m_finished.load(std::memory_order_acquire);
    if (seen >= count) return;
  }
  for (std::uint64_t seen = m_finished.load(std::memory_order_acquire); seen < count;
       seen = m_finished.load(std::memory_order_acquire)) {
    m_finished.wait(seen, std::memory_order_acquire);
  }
}

void cpu_stream::synchronize() {
  // Polls first, as cpu_event::wait does. The measure loops call this before every sample, right after the
  // last kernel's event completed; blocking there cost a futex wake-up, and the wake-up often moved this
  // thread onto the dispatcher's core (wake-affine placement), where the two took turns on one core.
  std::uint64_t launched = 0;
  {
    std::lock_guard lock(m_enqueue_mutex);
    launched = m_published.load(std::memory_order_relaxed) & ~stop_bit;
  }
  wait_until_finished(launched);
  if (!m_has_error.load(std::memory_order_acquire)) return;
  std::exception_ptr error;
  {
    std::lock_guard lock(m_error_mutex);
    error = std::exchange(m_error, nullptr);
    m_has_error.store(false, std::memory_order_relaxed);
  }
  if (error) std::rethrow_exception(error);
}

void cpu_stream::dispatch_loop() {
  bind_current_thread(m_dispatcher_cpu);
  const parallel_context context(m_pool);
  for (std::uint64_t next = 0;; ++next) {
    slot& s = m_slots[next % capacity];
    const auto launched = [&] { return s.ready.load(std::memory_order_acquire) == next + 1; };
    if (!launched()) {
      // Poll briefly before sleeping, as cpu_event::wait does: a launch that follows within the budget (the
      // timed loops launch back to back) then starts without the ~30 us futex wake-up inside the timed
      // window. Bound to its own cpu, the dispatcher spins: nobody it waits for needs that core (poll.hpp).
      // It polls the slot's flag (see the header) and m_stopping, never m_published (see m_stopping).
      (void)poll_until([&] { return launched() || m_stopping.load(std::memory_order_relaxed); },
                       [this] {
                         if (m_dispatcher_cpu >= 0) {
                           cpu_relax();
                         } else {
                           std::this_thread::yield();
                         }
                       });
      if (!launched()) {
        // Sleeps until the launch is published. The dispatcher may be ahead of m_published: it ran the last
        // launch as soon as its slot's flag was set, before the host stored the counter. So it waits for a
        // count above `next`, not for any change. seq_cst pairs with enqueue: either this load sees the
        // host's store, or the host sees the dispatcher asleep and wakes it.
        m_dispatcher_sleeping.store(true, std::memory_order_seq_cst);
        for (;;) {
          const std::uint64_t published = m_published.load(std::memory_order_seq_cst);
          // Published after next: the host set the slot's flag before the counter (release), so this
          // load, after the counter's, sees it.
          if ((published & ~stop_bit) > next || launched()) break;
          if ((published & stop_bit) != 0) return;  // stopping, and everything queued has run
          m_published.wait(published, std::memory_order_seq_cst);
        }
        m_dispatcher_sleeping.store(false, std::memory_order_relaxed);
      }
    }

    bool failed = false;
    std::exception_ptr error;
    const std::int64_t start_ns = steady_now_ns();
    try {
      s.kernel(context);
    } catch (...) {
      failed = true;
      error = std::current_exception();
    }
    const std::int64_t end_ns = steady_now_ns();
    s.kernel = nullptr;  // release captured state (buffers) before the event reports completion
    if (error) {
      std::lock_guard lock(m_error_mutex);
      if (!m_error) m_error = error;
      m_has_error.store(true, std::memory_order_release);
    }
    s.done->finish(start_ns, end_ns, failed);
    m_finished.store(next + 1, std::memory_order_release);
    m_finished.notify_all();  // no system call unless a host sleeps in wait_until_finished
  }
}

}  // namespace kbench::cpu
