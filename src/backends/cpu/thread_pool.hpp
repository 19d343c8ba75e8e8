#pragma once
// A fixed pool of worker threads that runs one parallel loop at a time: the cpu backend's "device cores".
// The thread calling parallel_for takes part in the loop, so a pool of W workers runs W - 1 extra threads.
//
// Chunk c of a loop belongs to thread c (the caller runs chunk 0), so that a kernel called again and again
// on the same buffers finds its part of them in the same core's L2, as OpenMP's static schedule does for
// torch. A chunk whose thread has not started it by the time the caller finished its own is run by the
// caller instead (a helper that was descheduled does not stall the loop). Helpers poll for new work for a
// short while before blocking, like the stream's dispatcher: the wake-up of a blocked thread costs tens of
// microseconds on this VM, more than a small kernel.

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
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
  /// body(begin, end) on each, chunk c on thread c when it is ready in time (see above). Returns when every
  /// chunk is done; rethrows the first exception a chunk threw. Not reentrant: one loop at a time (the cpu
  /// stream has one dispatcher).
  void parallel_for(std::size_t n, std::size_t grain,
                    const std::function<void(std::size_t, std::size_t)>& body);

  [[nodiscard]] unsigned workers() const { return static_cast<unsigned>(m_threads.size()) + 1; }

 private:
  void worker_loop(unsigned index);
  /// Runs chunk c if nobody has claimed it yet; false if someone had.
  bool run_chunk_if_unclaimed(std::size_t c, std::exception_ptr& error);

  std::vector<std::thread> m_threads;
  std::mutex m_mutex;
  std::condition_variable m_work_ready;
  std::condition_variable m_work_done;
  // The loop being run: chunk c covers [c * chunk_size, min(n, (c + 1) * chunk_size)).
  const std::function<void(std::size_t, std::size_t)>* m_body = nullptr;
  std::size_t m_n = 0;
  std::size_t m_chunk_size = 0;
  std::size_t m_chunks = 0;
  std::vector<char> m_claimed;                   // per chunk: taken by some thread (under m_mutex)
  std::atomic<std::size_t> m_pending_chunks{0};  // chunks not yet finished (changed under m_mutex)
  std::atomic<std::uint64_t> m_generation{0};    // bumped per loop so helpers know new work arrived
  std::exception_ptr m_error;
  bool m_stopping = false;
};

}  // namespace kbench::cpu
