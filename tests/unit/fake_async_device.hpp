#pragma once
// A test double of an asynchronous device: an in-order stream whose executions are completed by a background
// thread after a set delay, with switches that turn its per-event wait() and/or its barrier into no-ops (the
// TPU failure). The status query and the timestamps always stay real, which is what the sync check relies on.

#include <kbench/bench_target.hpp>
#include <kbench/event.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>

namespace kbench::test_double {

class fake_async_device {
 public:
  /// `delay`: how long each execution keeps the stream busy.
  explicit fake_async_device(std::chrono::microseconds delay) : m_delay(delay) {
    m_worker = std::thread([this] { run(); });
  }
  ~fake_async_device() {
    {
      const std::lock_guard lock(m_mutex);
      m_stopping = true;
      m_paused = false;
    }
    m_queue_cv.notify_all();
    m_worker.join();  // finishes the queued work first, so that no event is left incomplete forever
  }
  fake_async_device(const fake_async_device&) = delete;
  fake_async_device& operator=(const fake_async_device&) = delete;

  /// Makes every event's wait() return at once (for events launched from now on).
  void set_noop_wait(bool on) { m_noop_wait = on; }
  /// Makes barrier() return at once.
  void set_noop_barrier(bool on) { m_noop_barrier = on; }
  /// While paused, the stream starts no new execution: lets a test see work that is certainly still running,
  /// however the scheduler treats its threads.
  void set_paused(bool on) {
    {
      const std::lock_guard lock(m_mutex);
      m_paused = on;
    }
    m_queue_cv.notify_all();
  }

  /// Enqueues one execution; returns at once.
  [[nodiscard]] event_ptr launch() {
    auto state = std::make_shared<exec_state>();
    auto e = std::make_shared<fake_event>(state, m_noop_wait.load());
    {
      const std::lock_guard lock(m_mutex);
      m_queue.push_back(std::move(state));
      ++m_pending;
      ++m_launched;
    }
    m_queue_cv.notify_one();
    return e;
  }

  /// Waits until every launched execution has finished (unless made a no-op).
  void barrier() {
    if (m_noop_barrier) {
      return;
    }
    std::unique_lock lock(m_mutex);
    m_idle_cv.wait(lock, [this] { return m_pending == 0; });
  }

  [[nodiscard]] std::size_t launched() const {
    const std::lock_guard lock(m_mutex);
    return m_launched;
  }

  /// A target whose call launches one execution (no outputs) and whose barrier is this device's.
  [[nodiscard]] bench_target target(std::string name = "fake") {
    return bench_target{std::move(name),
                        [this] {
                          return call_result{{launch()}, {}};
                        },
                        [this] { barrier(); },
                        {}};
  }

 private:
  struct exec_state {
    std::mutex mutex;
    std::condition_variable cv;
    std::atomic<bool> complete{false};
    device_interval interval;  // written before `complete` is released, read only after it is acquired
  };

  class fake_event final : public event {
   public:
    fake_event(std::shared_ptr<exec_state> state, bool noop_wait)
        : m_state(std::move(state)), m_noop_wait(noop_wait) {}
    [[nodiscard]] bool is_complete() const override {
      return m_state->complete.load(std::memory_order_acquire);
    }
    void wait() override {
      if (m_noop_wait) {
        return;
      }
      std::unique_lock lock(m_state->mutex);
      m_state->cv.wait(lock, [this] { return m_state->complete.load(std::memory_order_acquire); });
    }
    [[nodiscard]] std::optional<device_interval> interval() const override {
      if (!is_complete()) {
        return std::nullopt;
      }
      return m_state->interval;
    }

   private:
    std::shared_ptr<exec_state> m_state;
    bool m_noop_wait;
  };

  static std::int64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }

  void run() {
    for (;;) {
      std::shared_ptr<exec_state> state;
      {
        std::unique_lock lock(m_mutex);
        m_queue_cv.wait(lock, [this] { return m_stopping || (!m_paused && !m_queue.empty()); });
        if (m_queue.empty()) {
          return;  // stopping, and nothing left to run
        }
        state = std::move(m_queue.front());
        m_queue.pop_front();
      }
      const std::int64_t start = now_ns();
      std::this_thread::sleep_for(m_delay);
      state->interval = device_interval{start, now_ns()};
      {
        const std::lock_guard lock(state->mutex);
        state->complete.store(true, std::memory_order_release);
      }
      state->cv.notify_all();
      {
        const std::lock_guard lock(m_mutex);
        --m_pending;
      }
      m_idle_cv.notify_all();
    }
  }

  std::chrono::microseconds m_delay;
  std::atomic<bool> m_noop_wait{false};
  std::atomic<bool> m_noop_barrier{false};
  mutable std::mutex m_mutex;
  std::condition_variable m_queue_cv;
  std::condition_variable m_idle_cv;
  std::deque<std::shared_ptr<exec_state>> m_queue;
  std::size_t m_pending = 0;
  std::size_t m_launched = 0;
  bool m_stopping = false;
  bool m_paused = false;
  std::thread m_worker;
};

/// An event completed by hand, for counting tests.
class manual_event final : public event {
 public:
  explicit manual_event(bool complete, std::optional<device_interval> interval = std::nullopt,
                        bool has_clock = true)
      : m_complete(complete), m_interval(interval), m_has_clock(has_clock) {}
  [[nodiscard]] bool is_complete() const override { return m_complete; }
  void wait() override { ++m_waits; }  // never completes anything: a wait that returns early
  [[nodiscard]] std::optional<device_interval> interval() const override {
    return m_complete ? m_interval : std::nullopt;
  }
  [[nodiscard]] bool has_device_clock() const override { return m_has_clock; }
  [[nodiscard]] int waits() const { return m_waits; }

 private:
  bool m_complete;
  std::optional<device_interval> m_interval;
  bool m_has_clock;
  int m_waits = 0;
};

}  // namespace kbench::test_double
