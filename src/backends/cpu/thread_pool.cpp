#include "backends/cpu/thread_pool.hpp"

#include <algorithm>

namespace kbench::cpu {

thread_pool::thread_pool(unsigned workers) {
  if (workers == 0) workers = std::max(1U, std::thread::hardware_concurrency());
  for (unsigned i = 1; i < workers; ++i) {
    m_threads.emplace_back([this, i] { worker_loop(i); });
  }
}

thread_pool::~thread_pool() {
  {
    std::lock_guard lock(m_mutex);
    m_stopping = true;
  }
  m_work_ready.notify_all();
  for (auto& t : m_threads) t.join();
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
    m_next_chunk = 1;  // chunk 0 is the caller's
    m_pending_chunks = chunks;
    m_error = nullptr;
    ++m_generation;
  }
  m_work_ready.notify_all();

  std::exception_ptr caller_error;
  try {
    body(0, std::min(n, chunk_size));
  } catch (...) {
    caller_error = std::current_exception();
  }

  std::unique_lock lock(m_mutex);
  // The caller also takes chunks no helper has claimed yet (fewer helpers than chunks, or slow wake-ups).
  while (m_next_chunk < m_chunks) {
    const std::size_t c = m_next_chunk++;
    lock.unlock();
    try {
      body(c * chunk_size, std::min(n, (c + 1) * chunk_size));
    } catch (...) {
      if (!caller_error) caller_error = std::current_exception();
    }
    lock.lock();
    --m_pending_chunks;
  }
  --m_pending_chunks;  // chunk 0
  m_work_done.wait(lock, [this] { return m_pending_chunks == 0; });
  m_body = nullptr;
  const std::exception_ptr error = caller_error ? caller_error : m_error;
  lock.unlock();
  if (error) std::rethrow_exception(error);
}

void thread_pool::worker_loop(unsigned /*index*/) {
  std::uint64_t seen_generation = 0;
  std::unique_lock lock(m_mutex);
  while (true) {
    m_work_ready.wait(lock,
                      [&] { return m_stopping || (m_generation != seen_generation && m_body != nullptr); });
    if (m_stopping) return;
    seen_generation = m_generation;
    while (m_body != nullptr && m_next_chunk < m_chunks) {
      const std::size_t c = m_next_chunk++;
      const auto* body = m_body;
      const std::size_t begin = c * m_chunk_size;
      const std::size_t end = std::min(m_n, (c + 1) * m_chunk_size);
      lock.unlock();
      std::exception_ptr error;
      try {
        (*body)(begin, end);
      } catch (...) {
        error = std::current_exception();
      }
      lock.lock();
      if (error && !m_error) m_error = error;
      if (--m_pending_chunks == 0) m_work_done.notify_all();
    }
  }
}

}  // namespace kbench::cpu
