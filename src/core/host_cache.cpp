// The host's caches (see host_cache.hpp): sizes read from sysfs, and the flush that evicts them.

#include <kbench/host_cache.hpp>

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cstdint>
#include <fstream>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace kbench {
namespace {

/// Parses a sysfs cache size such as "32768K", "1M" or "512" [bytes]; 0 if malformed.
std::size_t parse_cache_size(const std::string& text) {
  std::size_t pos = 0;
  unsigned long long value = 0;
  try {
    value = std::stoull(text, &pos);
  } catch (const std::exception&) {
    return 0;
  }
  std::size_t scale = 1;
  if (pos < text.size()) {
    switch (text[pos]) {
      case 'K':
      case 'k':
        scale = std::size_t{1} << 10;
        break;
      case 'M':
      case 'm':
        scale = std::size_t{1} << 20;
        break;
      case 'G':
      case 'g':
        scale = std::size_t{1} << 30;
        break;
      default:
        break;
    }
  }
  return static_cast<std::size_t>(value) * scale;
}

/// A data cache of cpu0 as sysfs lists it.
struct cache_level {
  int level = 0;
  std::size_t bytes = 0;
  std::size_t sharing_cpus = 0;  // cpus in its shared_cpu_list; 0 if unknown
};

/// The data caches of cpu0 that sysfs lists.
std::vector<cache_level> read_cache_levels() {
  std::vector<cache_level> levels;
  for (int index = 0; index < 16; ++index) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/";
    std::ifstream level_file(dir + "level");
    std::ifstream size_file(dir + "size");
    std::ifstream type_file(dir + "type");
    std::ifstream shared_file(dir + "shared_cpu_list");
    int level = 0;
    std::string size_text;
    std::string type = "Unified";
    std::string shared_text;
    if (!(level_file >> level) || !(size_file >> size_text)) {
      continue;  // indices may be sparse; an absent one is skipped rather than ending the scan
    }
    type_file >> type;
    shared_file >> shared_text;
    const std::size_t bytes = parse_cache_size(size_text);
    if (bytes > 0 && type != "Instruction") levels.push_back({level, bytes, count_cpu_list(shared_text)});
  }
  return levels;
}

/// The last-level cache (the largest of the highest level); bytes 0 if sysfs lists none.
cache_level read_last_level_cache() {
  cache_level last;
  last.level = -1;
  for (const cache_level& c : read_cache_levels()) {
    if (c.level > last.level || (c.level == last.level && c.bytes > last.bytes)) last = c;
  }
  return last;
}

std::size_t read_last_level_cache_bytes() {
  const std::size_t bytes = read_last_level_cache().bytes;
  return bytes > 0 ? bytes : std::size_t{32} << 20;
}

/// The largest cache below the last level [bytes] (on x86 the L2, each core's own); 1 MiB if none is listed.
std::size_t read_private_cache_bytes() {
  const auto levels = read_cache_levels();
  int last_level = -1;
  for (const cache_level& c : levels) last_level = std::max(last_level, c.level);
  std::size_t largest = 0;
  for (const cache_level& c : levels) {
    if (c.level < last_level) largest = std::max(largest, c.bytes);
  }
  return largest > 0 ? largest : std::size_t{1} << 20;
}

/// Writes a new value into every byte of `buffer`, then reads one byte per 64-byte line into `sink`, so that
/// neither pass can be optimized away.
void write_and_read(std::span<std::uint8_t> buffer, std::uint8_t value, std::atomic<std::uint64_t>& sink) {
  std::fill(buffer.begin(), buffer.end(), value);
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < buffer.size(); i += 64) sum += buffer[i];
  sink.fetch_add(sum, std::memory_order_relaxed);
}

std::atomic<std::uint64_t> flush_sink{0};

/// Flushes the private caches of every cpu the calling thread may use, in parallel, each from a thread bound
/// to it. One process-wide set of buffers (page faults paid once), so concurrent flushes take turns.
void flush_every_cores_private_caches() {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0 || CPU_COUNT(&allowed) <= 1) return;
  static const std::size_t bytes = 2 * read_private_cache_bytes();  // twice: an LRU-like cache keeps none
  static std::mutex mutex;
  static std::vector<std::vector<std::uint8_t>> buffers;
  static std::uint8_t generation = 0;
  const std::lock_guard lock(mutex);
  ++generation;
  // Sized before any thread starts: each holds a reference into it.
  if (buffers.size() < static_cast<std::size_t>(CPU_COUNT(&allowed))) {
    buffers.resize(static_cast<std::size_t>(CPU_COUNT(&allowed)), std::vector<std::uint8_t>(bytes));
  }
  std::vector<std::thread> threads;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &allowed)) continue;
    std::vector<std::uint8_t>& buffer = buffers[threads.size()];
    threads.emplace_back([&buffer, cpu, value = generation] {
      cpu_set_t one;
      CPU_ZERO(&one);
      CPU_SET(cpu, &one);
      if (pthread_setaffinity_np(pthread_self(), sizeof(one), &one) != 0) return;
      write_and_read(buffer, value, flush_sink);
    });
  }
  for (std::thread& t : threads) t.join();
}

}  // namespace

void flush_host_cache(std::size_t bytes) {
  if (bytes == 0) {
    bytes = last_level_flush_bytes();
  }
  flush_every_cores_private_caches();
  // Kept between calls (per thread, so concurrent flushes do not race) to pay the page faults once.
  thread_local std::vector<std::uint8_t> buffer;
  thread_local std::uint8_t generation = 0;
  if (buffer.size() < bytes) {
    buffer.resize(bytes);
  }
  ++generation;  // a new value each time, so that every line is really written
  write_and_read(std::span(buffer).first(bytes), generation, flush_sink);
}

std::size_t last_level_cache_bytes() {
  static const std::size_t bytes = read_last_level_cache_bytes();
  return bytes;
}

std::size_t count_cpu_list(std::string_view list) {
  std::size_t count = 0;
  while (!list.empty()) {
    const std::size_t comma = list.find(',');
    const std::string_view item = list.substr(0, comma);
    list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
    const std::size_t dash = item.find('-');
    unsigned long first = 0;
    unsigned long last = 0;
    const auto read = [](std::string_view text, unsigned long& value) {
      const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
      return error == std::errc{} && end == text.data() + text.size() && !text.empty();
    };
    if (!read(item.substr(0, dash), first)) return 0;
    last = first;
    if (dash != std::string_view::npos && !read(item.substr(dash + 1), last)) return 0;
    if (last < first) return 0;
    count += last - first + 1;
  }
  return count;
}

std::size_t cache_share_bytes(std::size_t cache_bytes, std::size_t sharing_cpus) {
  if (sharing_cpus == 0) return cache_bytes;
  return std::min(cache_bytes, sharing_cpus * max_cache_bytes_per_cpu);
}

std::size_t cache_flush_bytes(std::size_t cache_bytes, std::size_t sharing_cpus) {
  return std::min(cache_bytes, 2 * cache_share_bytes(cache_bytes, sharing_cpus));
}

std::size_t last_level_flush_bytes() {
  static const std::size_t bytes = [] {
    const cache_level last = read_last_level_cache();
    return last.bytes > 0 ? cache_flush_bytes(last.bytes, last.sharing_cpus) : last_level_cache_bytes();
  }();
  return bytes;
}

std::size_t last_level_cache_share_bytes() {
  static const std::size_t bytes = [] {
    const cache_level last = read_last_level_cache();
    return last.bytes > 0 ? cache_share_bytes(last.bytes, last.sharing_cpus) : last_level_cache_bytes();
  }();
  return bytes;
}

}  // namespace kbench
