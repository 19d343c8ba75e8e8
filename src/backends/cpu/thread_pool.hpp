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
//
// A host thread that waits for a kernel runs the chunks of the helper bound to its own cpu (help()): on 2
// cores the host and a helper share one, and when both polled, each yield handed the core to the other
// (docs/code-figures.md). So chunks are claimed without a lock, by a compare-and-swap on a

// word that holds the loop's generation, which a thread that read an older loop's generation cannot win.

#include <kbench/backends/cpu.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
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
  /// The same with the body given as `state_bytes` (<= parallel_context::max_copied_body) bytes at `state`,
  /// which every chunk's claim word keeps a copy of, and `call`, which runs a chunk on such a copy.
  void parallel_for(std::size_t n, std::size_t grain, parallel_context::chunk_function call,
                    const void* state, std::size_t state_bytes);

  enum class help_result {
    ran_a_chunk,        // the caller ran a chunk
    a_chunk_runs_here,  // another thread runs a chunk of a helper bound to `cpu`: it needs the core
    nothing_to_do,
  };
  /// Runs one chunk of the current loop that belongs to a helper bound to `cpu` and that no thread has
  /// started, on the calling thread: a host that waits for the kernel on that cpu does the helper's work
  /// instead of taking turns on the core with it. With cpu -1 there is nothing to do.
  help_result help(int cpu);

  [[nodiscard]] unsigned workers() const { return static_cast<unsigned>(m_threads.size()) + 1; }

 private:
  void worker_loop(unsigned index);
  /// Runs chunk c of loop `generation` if nobody has claimed it yet; false if someone had, or that loop is
  /// over.
  bool run_chunk_if_unclaimed(std::uint64_t generation, std::size_t c);

  /// Chunk c's claim word: unclaimed_in(g) while loop g has not given the chunk out yet, running_in(g) once
  /// a thread claimed it, finished_in(g) when that thread is done with it; and the chunk itself (its bounds,
  /// and its own copy of the loop's body or a pointer to it), written by the caller before it publishes the
  /// word (release) and read by the thread that wins the claim (acquire). Two cache lines each (128-byte
  /// aligned: the pair the cores' adjacent-line prefetchers fetch together), so that a helper (or a helping
  /// host) that sees its chunk offered has, with them, all it needs to run it: it used to read the loop's
  /// count, then its generation, then the claim, then the loop's fields next to the pool's own, then the
  /// body on the caller's stack and the kernel's closure, each a line the caller had just written.
  struct alignas(128) claim_word {
    std::atomic<std::uint64_t> value{0};
    parallel_context::chunk_function call = nullptr;
    std::size_t begin = 0;  // [items]
    std::size_t end = 0;    // [items], exclusive
    alignas(16) std::byte state[parallel_context::max_copied_body];
  };
  static_assert(sizeof(claim_word) == 128);
  static constexpr std::uint64_t unclaimed_in(std::uint64_t generation) { return 4 * generation; }
  static constexpr std::uint64_t running_in(std::uint64_t generation) { return 4 * generation + 1; }
  static constexpr std::uint64_t finished_in(std::uint64_t generation) { return 4 * generation + 2; }

  std::vector<std::thread> m_threads;
  std::unique_ptr<claim_word[]> m_claims;  // one per worker
  std::vector<int> m_thread_cpu;           // per worker: the cpu it is bound to, -1 if none (placement.hpp)
  alignas(64) std::atomic<std::size_t> m_pending_chunks{0};  // chunks of the current loop not yet finished
  alignas(64) std::atomic<std::uint64_t> m_generation{0};    // the current loop (helpers wait on it)
  std::atomic<bool> m_stopping{false};
  std::mutex m_error_mutex;
  std::exception_ptr m_error;  // the loop's first exception (under m_error_mutex)
};

}  // namespace kbench::cpu
