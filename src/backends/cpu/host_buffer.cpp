#include <kbench/backends/cpu.hpp>
#include <kbench/error.hpp>

#include <sys/mman.h>

#include <cstdlib>
#include <cstring>
#include <new>

namespace kbench::cpu {

namespace {
// [bytes] Every buffer starts on a page, as a device allocation does, rather than wherever malloc's heap had
// room (64-byte aligned, at offsets that depend on what the process allocated before: kbench run's workers
// hold torch's tensors, kbench measure does not). Operands at the same offset within their pages keep a
// streaming kernel's loads from aliasing its recent stores in address bits 0-11 (4K aliasing: such a load
// waits as if it depended on the store). Operands d bytes apart in their pages alias when the loads run d
// bytes ahead of the stores, and a heap's offsets put that anywhere (docs/code-figures.md).

constexpr std::size_t alignment = 4096;
// [bytes] Buffers of at least one huge page are aligned to it and marked MADV_HUGEPAGE, as device memory is
// mapped in large pages: with 4 KiB pages a 64 MiB operand spans 16,384 pages, far more than the TLB holds,
// and a streaming kernel takes a page walk every 4 KiB. (Only a hint: without THP it is ignored.)
constexpr std::size_t huge_page = std::size_t{2} << 20;
}  // namespace

host_buffer::host_buffer(std::size_t bytes) : m_bytes(bytes) {
  const std::size_t align = bytes >= huge_page ? huge_page : alignment;
  const std::size_t rounded = (bytes + align - 1) / align * align;
  m_data = std::aligned_alloc(align, rounded == 0 ? align : rounded);
  if (m_data == nullptr) KBENCH_THROW("cannot allocate {} bytes of host memory", bytes);
  if (align == huge_page) (void)madvise(m_data, rounded, MADV_HUGEPAGE);
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

void host_buffer::fill(std::byte value) {
  std::memset(m_data, std::to_integer<int>(value), m_bytes);
}

float* float_data(const buffer_ptr& b) {
  auto* host = dynamic_cast<host_buffer*>(b.get());
  if (host == nullptr) KBENCH_THROW("expected a host (cpu) buffer");
  return static_cast<float*>(host->data());
}

}  // namespace kbench::cpu
