#pragma once
// Device memory owned by one device.

#include <cstddef>
#include <memory>

namespace kbench {

/// A block of device memory. Copies are blocking: they return when the data has arrived.
class buffer {
 public:
  virtual ~buffer() = default;
  [[nodiscard]] virtual std::size_t size_bytes() const = 0;
  /// Copies `bytes` bytes from host memory `src` into the buffer (blocking).
  virtual void write(const void* src, std::size_t bytes) = 0;
  /// Copies `bytes` bytes from the buffer into host memory `dst` (blocking).
  virtual void read(void* dst, std::size_t bytes) const = 0;
};

using buffer_ptr = std::shared_ptr<buffer>;

}  // namespace kbench
