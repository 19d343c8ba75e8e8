#pragma once
// A cpu kernel as the stream queues it: a move-only callable that keeps a closure of up to inline_bytes in
// itself, where std::function (16 bytes inline in libstdc++) would put a kernel's closure (its pointers and
// sizes, 40-80 bytes) on the heap. The stream stores it in the queue slot the dispatcher reads anyway, so the
// dispatcher finds the closure in the slot's two cache lines and does not wait for a third line, written by
// the host on another core, before the kernel can start (see cpu_stream.hpp). Larger or over-aligned
// closures, and those whose move may throw, go on the heap, as with std::function.

#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>

namespace kbench::cpu {

class parallel_context;

class cpu_kernel {
 public:
  static constexpr std::size_t inline_bytes = 80;  // [bytes] closures up to this size are kept inline

  cpu_kernel() noexcept = default;
  cpu_kernel(std::nullptr_t) noexcept {}  // NOLINT(google-explicit-constructor): as std::function
  template <class F, class = std::enable_if_t<!std::is_same_v<std::decay_t<F>, cpu_kernel> &&
                                              std::is_invocable_v<std::decay_t<F>&, const parallel_context&>>>
  cpu_kernel(F&& f) {  // NOLINT(google-explicit-constructor): a lambda converts, as to std::function
    using closure = std::decay_t<F>;
    if constexpr (fits_inline<closure>) {
      ::new (static_cast<void*>(m_storage)) closure(std::forward<F>(f));
    } else {
      ::new (static_cast<void*>(m_storage)) closure*(new closure(std::forward<F>(f)));
    }
    m_ops = &ops_for<closure>;
  }
  cpu_kernel(cpu_kernel&& other) noexcept { take(other); }
  cpu_kernel& operator=(cpu_kernel&& other) noexcept {
    if (this != &other) {
      reset();
      take(other);
    }
    return *this;
  }
  cpu_kernel& operator=(std::nullptr_t) noexcept {
    reset();
    return *this;
  }
  cpu_kernel(const cpu_kernel&) = delete;
  cpu_kernel& operator=(const cpu_kernel&) = delete;
  ~cpu_kernel() { reset(); }

  explicit operator bool() const noexcept { return m_ops != nullptr; }
  /// Runs the closure; undefined when empty.
  void operator()(const parallel_context& context) { m_ops->invoke(m_storage, context); }

 private:
  struct operations {
    void (*invoke)(void* storage, const parallel_context& context);
    void (*move)(void* to, void* from) noexcept;  // move-constructs into `to` and destroys `from`
    void (*destroy)(void* storage) noexcept;
  };

  template <class F>
  static constexpr bool fits_inline =
      sizeof(F) <= inline_bytes &&
      alignof(F) <= alignof(std::max_align_t) && std::is_nothrow_move_constructible_v<F>;

  template <class F>
  static F& closure_in(void* storage) {
    if constexpr (fits_inline<F>) {
      return *std::launder(static_cast<F*>(storage));
    } else {
      return **std::launder(static_cast<F**>(storage));
    }
  }

  template <class F>
  static constexpr operations ops_for = {
      [](void* storage, const parallel_context& context) { closure_in<F>(storage)(context); },
      [](void* to, void* from) noexcept {
        if constexpr (fits_inline<F>) {
          F& source = closure_in<F>(from);
          ::new (to) F(std::move(source));
          source.~F();
        } else {
          ::new (to) F*(*std::launder(static_cast<F**>(from)));
        }
      },
      [](void* storage) noexcept {
        if constexpr (fits_inline<F>) {
          closure_in<F>(storage).~F();
        } else {
          delete &closure_in<F>(storage);
        }
      }};

  void take(cpu_kernel& other) noexcept {
    if (other.m_ops == nullptr) return;
    other.m_ops->move(m_storage, other.m_storage);
    m_ops = std::exchange(other.m_ops, nullptr);
  }
  void reset() noexcept {
    if (m_ops != nullptr) std::exchange(m_ops, nullptr)->destroy(m_storage);
  }

  const operations* m_ops = nullptr;
  alignas(std::max_align_t) std::byte m_storage[inline_bytes];
};

}  // namespace kbench::cpu
