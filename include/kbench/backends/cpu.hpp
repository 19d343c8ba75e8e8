#pragma once
// The cpu backend: kernels are C++ callables queued on an in-order stream and executed by a worker thread,
// which may split loops over a thread pool. Launch returns at once with an event, like a device stream.
// Device time = the worker's steady clock around the execution.

#include <kbench/backends/cpu_kernel.hpp>
#include <kbench/device.hpp>
#include <kbench/event.hpp>

#include <cstddef>
#include <functional>
#include <memory>
#include <type_traits>

namespace kbench::cpu {

class thread_pool;

/// Given to a cpu kernel while it runs: parallel loops over the device's workers.
class parallel_context {
 public:
  explicit parallel_context(thread_pool& pool) : m_pool(pool) {}
  /// Calls body(begin, end) over [0, n) split into contiguous chunks of at least `grain` items, one chunk per
  /// worker at most; returns when all chunks are done.
  void parallel_for(std::size_t n, std::size_t grain,
                    const std::function<void(std::size_t begin, std::size_t end)>& body) const;

  /// Calls the body stored at `state` on [begin, end).
  using chunk_function = void (*)(const void* state, std::size_t begin, std::size_t end);
  /// The largest callable parallel_for_copy hands over by value [bytes].
  static constexpr std::size_t max_copied_body = 96;
  /// As parallel_for, but each chunk's thread calls its own copy of `body`, which the pool keeps next to the
  /// chunk's bounds: a thread that starts a chunk then reads no line of the caller's stack or heap, each of
  /// which is a transfer between cores that the caller has just written (docs/backends.md). For a small body
  /// (<= max_copied_body bytes) that is trivially copyable (pointers and numbers, by value or by reference);
  /// any other runs as it is, through parallel_for.
  template <class Body>
  void parallel_for_copy(std::size_t n, std::size_t grain, const Body& body) const {
    if constexpr (std::is_trivially_copyable_v<Body> && sizeof(Body) <= max_copied_body &&
                  alignof(Body) <= alignof(std::max_align_t)) {
      run_copied(n, grain, &call_copy<Body>, &body, sizeof(Body));
    } else {
      parallel_for(n, grain, std::cref(body));  // by reference: no copy of the body on the heap
    }
  }

  [[nodiscard]] unsigned workers() const;

 private:
  template <class Body>
  static void call_copy(const void* state, std::size_t begin, std::size_t end) {
    (*static_cast<const Body*>(state))(begin, end);
  }
  void run_copied(std::size_t n, std::size_t grain, chunk_function call, const void* state,
                  std::size_t state_bytes) const;

  thread_pool& m_pool;
};

/// Host memory seen as device memory of the cpu backend: page-aligned (4 KiB; 2 MiB from 2 MiB up).
class host_buffer : public buffer {
 public:
  explicit host_buffer(std::size_t bytes);
  ~host_buffer() override;
  host_buffer(const host_buffer&) = delete;
  host_buffer& operator=(const host_buffer&) = delete;
  [[nodiscard]] std::size_t size_bytes() const override { return m_bytes; }
  void write(const void* src, std::size_t bytes) override;
  void read(void* dst, std::size_t bytes) const override;
  void fill(std::byte value) override;
  [[nodiscard]] void* data() { return m_data; }
  [[nodiscard]] const void* data() const { return m_data; }

 private:
  std::size_t m_bytes = 0;
  void* m_data = nullptr;
};

/// Host pointer of a cpu buffer; throws kbench::error if `b` is not a host_buffer.
[[nodiscard]] float* float_data(const buffer_ptr& b);

class cpu_device : public device {
 public:
  /// `threads` workers for parallel_for (0 = hardware concurrency).
  explicit cpu_device(unsigned threads = 0);
  ~cpu_device() override;
  cpu_device(const cpu_device&) = delete;
  cpu_device& operator=(const cpu_device&) = delete;

  [[nodiscard]] const device_info& info() const override;
  [[nodiscard]] buffer_ptr allocate(std::size_t bytes) override;
  void barrier() override;
  /// Flushes the host's caches (device::flush_caches), then wakes the stream's dispatcher with an empty
  /// kernel, so that the next call does not pay its wake-up.
  void flush_caches() override;

  /// Enqueues `kernel` on the in-order stream; returns at once. A kernel that throws marks its event failed
  /// (complete, no timestamps) and the exception is rethrown by the next barrier().
  [[nodiscard]] event_ptr launch(cpu_kernel kernel);

 private:
  struct impl;
  std::unique_ptr<impl> m_impl;
};

[[nodiscard]] std::vector<device_info> list_devices();
[[nodiscard]] std::shared_ptr<cpu_device> open_device();

}  // namespace kbench::cpu
