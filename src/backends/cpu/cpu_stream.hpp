#pragma once
// An in-order queue of cpu kernels served by one dispatcher thread: the cpu backend's stream. Launch returns
// at once; each kernel's event completes when the dispatcher has run it.

#include <kbench/backends/cpu.hpp>
#include <kbench/event.hpp>

#include "backends/cpu/thread_pool.hpp"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>

namespace kbench::cpu {

/// Completion state of one queued kernel, shared by the stream and the event handed to the caller.
class cpu_event final : public event {
 public:
  [[nodiscard]] bool is_complete() const override { return m_complete.load(std::memory_order_acquire); }
  void wait() override;
  [[nodiscard]] std::optional<device_interval> interval() const override;

  /// Called by the dispatcher: timestamps on the worker's steady clock [ns]; failed = the kernel threw.
  void finish(std::int64_t start_ns, std::int64_t end_ns, bool failed);

 private:
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

  [[nodiscard]] event_ptr enqueue(cpu_kernel kernel);
  /// Blocks until the queue is empty and nothing runs; rethrows the first exception a kernel threw since the
  /// last synchronize.
  void synchronize();

 private:
  struct task {
    cpu_kernel kernel;
    std::shared_ptr<cpu_event> done;
  };
  void dispatch_loop();

  thread_pool& m_pool;
  std::mutex m_mutex;
  std::condition_variable m_work_ready;
  std::condition_variable m_idle;
  std::deque<task> m_queue;
  std::atomic<std::size_t> m_queued{0};   // m_queue.size(), readable without the lock (the dispatcher's spin)
  std::atomic<std::size_t> m_pending{0};  // queued or executing tasks, readable without the lock
  bool m_running = false;                 // a task has been taken and is executing
  bool m_stopping = false;
  std::exception_ptr m_error;
  std::thread m_dispatcher;  // last: started after every other member exists
};

}  // namespace kbench::cpu
