#include "backends/cpu/cpu_stream.hpp"

#include "backends/cpu/poll.hpp"

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
}  // namespace

void cpu_event::wait() {
  // Poll briefly before sleeping (poll.hpp): a futex wake-up would land inside every timed window. Short
  // kernels finish within the poll; long ones lose at most poll_budget of one core.
  if (poll_until([this] { return m_complete.load(std::memory_order_acquire); })) return;
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

cpu_stream::cpu_stream(thread_pool& pool) : m_pool(pool), m_dispatcher([this] { dispatch_loop(); }) {}

cpu_stream::~cpu_stream() {
  {
    std::lock_guard lock(m_mutex);
    m_stopping = true;
  }
  m_work_ready.notify_all();
  m_dispatcher.join();
}

event_ptr cpu_stream::enqueue(cpu_kernel kernel) {
  auto done = std::make_shared<cpu_event>();
  {
    std::lock_guard lock(m_mutex);
    m_queue.push_back(task{std::move(kernel), done});
    m_pending.fetch_add(1, std::memory_order_relaxed);
    m_queued.store(m_queue.size(), std::memory_order_release);
  }
  m_work_ready.notify_one();
  return done;
}

void cpu_stream::synchronize() {
  // Poll first, as cpu_event::wait does. The measure loops call this before every sample, right after the
  // last kernel's event completed and while the dispatcher is still clearing m_running. Blocking then cost a
  // futex wake-up, and the wake-up often moved this thread onto the dispatcher's core (wake-affine
  // placement), where the two took turns on one core: measured on add [128,128], host and dispatcher on the
  // same cpu at 4008 of 4008 launches before, 0 of 4008 in two of three runs after.
  (void)poll_until([this] { return m_pending.load(std::memory_order_acquire) == 0; });
  std::unique_lock lock(m_mutex);
  m_idle.wait(lock, [this] { return m_queue.empty() && !m_running; });
  if (m_error) {
    std::exception_ptr error = std::exchange(m_error, nullptr);
    lock.unlock();
    std::rethrow_exception(error);
  }
}

void cpu_stream::dispatch_loop() {
  thread_pool::bind_current_thread(0);  // it runs chunk 0 of every parallel loop
  const parallel_context context(m_pool);
  std::unique_lock lock(m_mutex);
  while (true) {
    if (m_queue.empty() && !m_stopping) {
      // Poll briefly before sleeping, as cpu_event::wait does: a launch that follows within the budget (the
      // timed loops launch back to back) then starts without the ~30 us futex wake-up inside the timed
      // window.
      lock.unlock();
      (void)poll_until([this] { return m_queued.load(std::memory_order_acquire) != 0; });
      lock.lock();
    }
    m_work_ready.wait(lock, [this] { return m_stopping || !m_queue.empty(); });
    if (m_queue.empty()) return;  // stopping, and everything queued has run
    task next = std::move(m_queue.front());
    m_queue.pop_front();
    m_queued.store(m_queue.size(), std::memory_order_release);
    m_running = true;
    lock.unlock();

    bool failed = false;
    std::exception_ptr error;
    const std::int64_t start_ns = steady_now_ns();
    try {
      next.kernel(context);
    } catch (...) {
      failed = true;
      error = std::current_exception();
    }
    const std::int64_t end_ns = steady_now_ns();
    next.kernel = nullptr;  // release captured state before the event reports completion
    next.done->finish(start_ns, end_ns, failed);

    lock.lock();
    if (error && !m_error) m_error = error;
    m_running = false;
    m_pending.fetch_sub(1, std::memory_order_release);
    if (m_queue.empty()) m_idle.notify_all();
  }
}

}  // namespace kbench::cpu
