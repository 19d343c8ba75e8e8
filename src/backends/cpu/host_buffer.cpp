#include <kbench/backends/cpu.hpp>
#include <kbench/error.hpp>

#include <cstdlib>
#include <cstring>
#include <new>

namespace kbench::cpu {

namespace {
constexpr std::size_t alignment = 64;  // [bytes] one cache line, and enough for AVX-512 loads
}

host_buffer::host_buffer(std::size_t bytes) : m_bytes(bytes) {
  const std::size_t rounded = (bytes + alignment - 1) / alignment * alignment;
  m_data = std::aligned_alloc(alignment, rounded == 0 ? alignment : rounded);
  if (m_data == nullptr) KBENCH_THROW("cannot allocate {} bytes of host memory", bytes);
}

host_buffer::~host_buffer() {
  std::free(m_data);
}

void host_buffer::write(const void* src, std::size_t bytes) {
  if (bytes > m_bytes) KBENCH_THROW("write of {} bytes into a buffer of {} bytes", bytes, m_bytes);
  std::memcpy(m_data, src, bytes);
}

void host_buffer::read(void* dst, std::size_t bytes) const {
  if (bytes > m_bytes) KBENCH_THROW("read of {} bytes from a buffer of {} bytes", bytes, m_bytes);
  std::memcpy(dst, m_data, bytes);
}

float* float_data(const buffer_ptr& b) {
  auto* host = dynamic_cast<host_buffer*>(b.get());
  if (host == nullptr) KBENCH_THROW("expected a host (cpu) buffer");
  return static_cast<float*>(host->data());
}

}  // namespace kbench::cpu
