#pragma once
// A fixed pool of worker threads that runs one parallel loop at a time: the cpu backend's "device cores".
// The thread calling parallel_for takes part in the loop, so a pool of W workers runs W - 1 extra threads.

#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace kbench::cpu {

class thread_pool {
 public:
  /// `workers` threads of execution in all (0 = hardware concurrency), the caller included.
  explicit thread_pool(unsigned workers = 0);
  ~thread_pool();
  thread_pool(const thread_pool&) = delete;
  thread_pool& operator=(const thread_pool&) = delete;

  /// Splits [0, n) into at most workers() contiguous chunks of at least `grain` items and calls
  /// body(begin, end) on each, the caller running the first. Returns when every chunk is done; rethrows the
  /// first exception a chunk threw. Not reentrant: one loop at a time (the cpu stream has one dispatcher).
  void parallel_for(std::size_t n, std::size_t grain,
                    const std::function<void(std::size_t, std::size_t)>& body);

  [[nodiscard]] unsigned workers() const { return static_cast<unsigned>(m_threads.size()) + 1; }

 private:
  void worker_loop(unsigned index);

  std::vector<std::thread> m_threads;
  std::mutex m_mutex;
  std::condition_variable m_work_ready;
  std::condition_variable m_work_done;
  // The loop being run: chunk c covers [c * chunk_size, min(n, (c + 1) * chunk_size)).
  const std::function<void(std::size_t, std::size_t)>* m_body = nullptr;
  std::size_t m_n = 0;
  std::size_t m_chunk_size = 0;
  std::size_t m_chunks = 0;
  std::size_t m_next_chunk = 0;      // next chunk a helper thread may take
  std::size_t m_pending_chunks = 0;  // chunks not yet finished
  std::uint64_t m_generation = 0;    // bumped per loop so helpers know new work arrived
  std::exception_ptr m_error;
  bool m_stopping = false;
};

}  // namespace kbench::cpu
