#pragma once
// Device memory owned by one device.

#include <cstddef>
#include <memory>
#include <vector>

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
  /// Sets every byte of the buffer to `value` (blocking). This default writes a host copy of the buffer's
  /// size; a backend overrides it with its own fill (memset, clEnqueueFillBuffer), which needs no host
  /// memory.
  virtual void fill(std::byte value) {
    const std::vector<std::byte> bytes(size_bytes(), value);
    write(bytes.data(), bytes.size());
  }
};

using buffer_ptr = std::shared_ptr<buffer>;

}  // namespace kbench
