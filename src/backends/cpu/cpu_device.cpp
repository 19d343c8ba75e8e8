// The cpu backend's device: host memory, a thread pool, and one in-order stream.

#include <kbench/backends/cpu.hpp>
#include <kbench/build_config.hpp>
#include <kbench/error.hpp>

#include "backends/cpu/cpu_stream.hpp"
#include "backends/cpu/thread_pool.hpp"

#include <unistd.h>

#include <fstream>
#include <string>

namespace kbench::cpu {

namespace {

/// "model name" and "vendor_id" from /proc/cpuinfo ("unknown CPU" where it cannot be read).
std::pair<std::string, std::string> read_cpu_identity() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line, name = "unknown CPU", vendor;
  auto value_of = [](const std::string& l) {
    const auto colon = l.find(':');
    return colon == std::string::npos ? std::string{} : l.substr(l.find_first_not_of(" \t", colon + 1));
  };
  bool have_name = false, have_vendor = false;
  while ((!have_name || !have_vendor) && std::getline(cpuinfo, line)) {
    if (!have_name && line.rfind("model name", 0) == 0) {
      name = value_of(line);
      have_name = true;
    } else if (!have_vendor && line.rfind("vendor_id", 0) == 0) {
      vendor = value_of(line);
      have_vendor = true;
    }
  }
  return {name, vendor};
}

}  // namespace

void parallel_context::parallel_for(std::size_t n, std::size_t grain,
                                    const std::function<void(std::size_t, std::size_t)>& body) const {
  m_pool.parallel_for(n, grain, body);
}

void parallel_context::run_copied(std::size_t n, std::size_t grain, chunk_function call, const void* state,
                                  std::size_t state_bytes) const {
  m_pool.parallel_for(n, grain, call, state, state_bytes);
}

unsigned parallel_context::workers() const {
  return m_pool.workers();
}

struct cpu_device::impl {
  explicit impl(unsigned threads) : pool(threads), stream(pool) {}
  device_info info;
  thread_pool pool;
  cpu_stream stream;  // after pool: destroyed first, so no kernel outlives the pool
};

cpu_device::cpu_device(unsigned threads) : m_impl(std::make_unique<impl>(threads)) {
  auto [name, vendor] = read_cpu_identity();
  device_info& info = m_impl->info;
  info.backend = backend_kind::cpu;
  info.name = name;
  info.vendor = vendor;
  info.platform = "kbench thread pool";
  info.driver_version = KBENCH_VERSION;
  info.compute_units = m_impl->pool.workers();
  info.global_memory_bytes =
      static_cast<std::size_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
}

cpu_device::~cpu_device() = default;

const device_info& cpu_device::info() const {
  return m_impl->info;
}

buffer_ptr cpu_device::allocate(std::size_t bytes) {
  return std::make_shared<host_buffer>(bytes);
}

void cpu_device::barrier() {
  m_impl->stream.synchronize();
}

void cpu_device::flush_caches() {
  barrier();               // the kernels queued before the flush run first
  device::flush_caches();  // every core's caches, from the host
  // Then an empty kernel, waited for: the flush outlasts the dispatcher's poll, so it fell asleep, and its
  // wake-up landed in the next timed call (docs/code-figures.md).

  launch([](const parallel_context&) {})->wait();
}

event_ptr cpu_device::launch(cpu_kernel kernel) {
  return m_impl->stream.enqueue(std::move(kernel));
}

std::vector<device_info> list_devices() {
  return {open_device()->info()};
}

std::shared_ptr<cpu_device> open_device() {
  return std::make_shared<cpu_device>();
}

}  // namespace kbench::cpu
