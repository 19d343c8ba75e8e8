#include "backends/cpu/thread_pool.hpp"

#include "backends/cpu/placement.hpp"
#include "backends/cpu/poll.hpp"

#include <algorithm>
#include <chrono>

namespace kbench::cpu {

thread_pool::thread_pool(unsigned workers) {
  if (workers == 0) workers = std::max(1U, std::thread::hardware_concurrency());
  m_claimed.resize(workers);
  for (unsigned i = 1; i < workers; ++i) {
    m_threads.emplace_back([this, i] { worker_loop(i); });
  }
}

thread_pool::~thread_pool() {
  {
    std::lock_guard lock(m_mutex);
    m_stopping = true;
    m_generation.fetch_add(1, std::memory_order_release);
  }
  m_work_ready.notify_all();
  for (auto& t : m_threads) t.join();
}

bool thread_pool::run_chunk_if_unclaimed(std::size_t c, std::exception_ptr& error) {
  std::unique_lock lock(m_mutex);
  if (m_body == nullptr || c >= m_chunks || m_claimed[c] != 0) return false;
  m_claimed[c] = 1;
  const auto* body = m_body;
  const std::size_t begin = c * m_chunk_size;
  const std::size_t end = std::min(m_n, (c + 1) * m_chunk_size);
  lock.unlock();
  try {
    (*body)(begin, end);
  } catch (...) {
    error = std::current_exception();
  }
  lock.lock();
  if (error && !m_error) m_error = error;
  if (--m_pending_chunks == 0) m_work_done.notify_all();
  return true;
}

void thread_pool::parallel_for(std::size_t n, std::size_t grain,
                               const std::function<void(std::size_t, std::size_t)>& body) {
  if (n == 0) return;
  grain = std::max<std::size_t>(grain, 1);
  const std::size_t max_chunks = std::min<std::size_t>(workers(), (n + grain - 1) / grain);
  const std::size_t chunk_size = (n + max_chunks - 1) / max_chunks;
  const std::size_t chunks = (n + chunk_size - 1) / chunk_size;
  if (chunks == 1) {
    body(0, n);
    return;
  }
  {
    std::lock_guard lock(m_mutex);
    m_body = &body;
    m_n = n;
    m_chunk_size = chunk_size;
    m_chunks = chunks;
    std::fill(m_claimed.begin(), m_claimed.end(), 0);
    m_pending_chunks = chunks;
    m_error = nullptr;
    m_generation.fetch_add(1, std::memory_order_release);
  }
  m_work_ready.notify_all();

  // The caller's own chunk, then any chunk whose helper has not started it yet.
  std::exception_ptr caller_error;
  for (std::size_t c = 0; c < chunks; ++c) {
    std::exception_ptr error;
    if (run_chunk_if_unclaimed(c, error) && error && !caller_error) caller_error = error;
  }

  // Poll for the helpers' chunks before blocking: the futex wake-up after the last one would cost more than
  // a small loop (add [128,128] in 2 tasks: 0.032 ms of device time when the caller blocked, 0.004 in 4).
  (void)poll_until([this] { return m_pending_chunks.load(std::memory_order_acquire) == 0; });
  std::unique_lock lock(m_mutex);
  m_work_done.wait(lock, [this] { return m_pending_chunks.load(std::memory_order_relaxed) == 0; });
  m_body = nullptr;
  const std::exception_ptr error = caller_error ? caller_error : m_error;
  lock.unlock();
  if (error) std::rethrow_exception(error);
}

void thread_pool::worker_loop(unsigned index) {
  bind_current_thread(cpu_for_pool_thread(index));  // placement.hpp
  std::uint64_t seen_generation = 0;
  while (true) {
    (void)poll_until([&] { return m_generation.load(std::memory_order_acquire) != seen_generation; });
    {
      std::unique_lock lock(m_mutex);
      m_work_ready.wait(lock, [&] {
        return m_stopping || m_generation.load(std::memory_order_relaxed) != seen_generation;
      });
      if (m_stopping) return;
      seen_generation = m_generation.load(std::memory_order_relaxed);
    }
    std::exception_ptr error;
    run_chunk_if_unclaimed(index, error);
  }
}

}  // namespace kbench::cpu
