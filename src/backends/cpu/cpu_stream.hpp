#pragma once
// An in-order queue of cpu kernels served by one dispatcher thread: the cpu backend's stream. Launch returns
// at once; each kernel's event completes when the dispatcher has run it.
//
// The queue is a ring of slots with two counters, launches published (written by the host) and launches
// finished (written by the dispatcher), each on its own cache line, so that a launch takes no lock shared
// with the dispatcher: a round trip moves a few cache lines between the two cores and nothing else. Every
// line counts: on the VM this was built on, one cache line's round trip between the two cores takes about
// 50, 100 or 430 ns, depending on where the hypervisor puts them (docs/backends.md). So a waiting dispatcher
// polls the flag in the next slot, which shares its two lines with the kernel's closure and event, rather
// than the counter and then the slot and then a closure on the heap, three lines one after the other.

#include <kbench/backends/cpu.hpp>
#include <kbench/event.hpp>

#include "backends/cpu/thread_pool.hpp"

#include <atomic>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>

namespace kbench::cpu {

/// Completion state of one queued kernel, shared by the stream and the event handed to the caller.
class cpu_event final : public event {
 public:
  /// `dispatcher_cpu`: the cpu the stream's dispatcher is bound to (-1: not bound), which wait() steps off;
  /// `pool`: the stream's pool, asked while the event is incomplete (so while the stream exists) whether
  /// its helpers are busy.
  cpu_event(int dispatcher_cpu, thread_pool& pool) : m_dispatcher_cpu(dispatcher_cpu), m_pool(pool) {}
  [[nodiscard]] bool is_complete() const override { return m_complete.load(std::memory_order_acquire); }
  void wait() override;
  [[nodiscard]] std::optional<device_interval> interval() const override;

  /// Called by the dispatcher: timestamps on the worker's steady clock [ns]; failed = the kernel threw.
  void finish(std::int64_t start_ns, std::int64_t end_ns, bool failed);

 private:
  const int m_dispatcher_cpu;
  thread_pool& m_pool;
  std::atomic<bool> m_complete{false};  // set after the fields below, which are then read-only
  std::int64_t m_start_ns = 0;
  std::int64_t m_end_ns = 0;
  bool m_failed = false;
};

class cpu_stream {
 public:
  explicit cpu_stream(thread_pool& pool);
  ~cpu_stream();
  cpu_stream(const cpu_stream&) = delete;
  cpu_stream& operator=(const cpu_stream&) = delete;

  /// Queues `kernel`; blocks only while `capacity` launches are already queued (as a CUDA launch does when
  /// its queue is full). Safe to call from several threads.
  [[nodiscard]] event_ptr enqueue(cpu_kernel kernel);
  /// Blocks until every kernel launched before the call has run; rethrows the first exception a kernel threw
  /// since the last synchronize.
  void synchronize();

  static constexpr std::uint64_t capacity = 1024;  // launches queued at most (a power of two)

 private:
  // Two cache lines: the launch's flag, its event and its closure (cpu_kernel keeps it inline), so that a
  // dispatcher polling the flag gets what it needs to start the kernel with the same lines.
  struct alignas(64) slot {
    std::atomic<std::uint64_t> ready{0};  // launch index + 1 once the host has filled the slot
    std::shared_ptr<cpu_event> done;      // reset by the host when the slot is reused
    cpu_kernel kernel;                    // reset by the dispatcher once it ran
  };
  static constexpr std::uint64_t stop_bit = std::uint64_t{1} << 63;  // in m_published: the stream closes

  void dispatch_loop();
  void wait_until_finished(std::uint64_t count);

  thread_pool& m_pool;
  const int m_dispatcher_cpu;  // the cpu the dispatcher is bound to; -1: not bound (placement.hpp)
  std::unique_ptr<slot[]> m_slots;
  // Serializes hosts that launch at the same time; the dispatcher never takes it. On a line of its own: the
  // dispatcher reads the members above at every kernel, and a lock or unlock on their line had to take the
  // line back from the dispatcher's core (docs/code-figures.md).

  alignas(64) std::mutex m_enqueue_mutex;
  // Launches the host has seen finished (under m_enqueue_mutex): a launch reads m_finished, a line the
  // dispatcher writes after every kernel, only when its slot may still be in use, not at every launch.
  std::uint64_t m_finished_seen = 0;
  // Launches published, plus stop_bit once the destructor runs; written by the host, so that the
  // dispatcher's wait on it sees either change.
  alignas(64) std::atomic<std::uint64_t> m_published{0};
  alignas(64) std::atomic<std::uint64_t> m_finished{0};  // launches run to the end; written by the dispatcher
  alignas(64) std::atomic<bool> m_dispatcher_sleeping{false};
  // Set by the destructor, for a polling dispatcher; it polled the stop bit in m_published before, and then
  // every launch's store to m_published had to take that line back from the dispatcher's core first (the
  // store is seq_cst and waits for it), and the dispatcher's next poll missed it again
  // (docs/code-figures.md).

  alignas(64) std::atomic<bool> m_stopping{false};
  std::mutex m_error_mutex;
  std::exception_ptr m_error;  // the first exception since the last synchronize (under m_error_mutex)
  std::atomic<bool> m_has_error{false};
  std::thread m_dispatcher;  // last: started after every other member exists
};

}  // namespace kbench::cpu
