#pragma once
// The host's caches: their sizes as sysfs lists them, and the flush that evicts them before a cold-cache
// sample (bench_options::flush_cache, device::flush_caches).

#include <cstddef>
#include <string_view>

namespace kbench {

/// Evicts the host's caches: first every core's private caches, each by a thread bound to that core (of the
/// cpus the calling thread may use) that writes and reads a buffer of twice their size, then the last-level
/// cache, by writing and reading a buffer of `bytes` bytes (0 = last_level_flush_bytes()) on the calling
/// thread. A flush from one core alone would leave another core's L2 as it was (docs/measurement.md).
void flush_host_cache(std::size_t bytes = 0);
/// The host's last-level cache size [bytes] (sysfs; 32 MiB if unknown).
[[nodiscard]] std::size_t last_level_cache_bytes();
/// How much a flush writes to evict the last-level cache [bytes]: cache_flush_bytes of the listed LLC.
[[nodiscard]] std::size_t last_level_flush_bytes();

/// The part of the last-level cache [bytes] that a kernel's data can be expected to stay in: the cache, at
/// most max_cache_bytes_per_cpu per cpu sharing it, since a virtual machine may list its host's whole cache
/// (docs/measurement.md).
[[nodiscard]] std::size_t last_level_cache_share_bytes();
inline constexpr std::size_t max_cache_bytes_per_cpu = std::size_t{32} << 20;
/// The number of cpus in a sysfs cpu list such as "0-3,8,10-11" (7); 0 if malformed or empty.
[[nodiscard]] std::size_t count_cpu_list(std::string_view list);
/// `cache_bytes` capped at max_cache_bytes_per_cpu per sharing cpu; unchanged if that count is 0 (unknown).
[[nodiscard]] std::size_t cache_share_bytes(std::size_t cache_bytes, std::size_t sharing_cpus);
/// The bytes to write to evict a cache of `cache_bytes` shared by `sharing_cpus` cpus: the cache itself, or
/// twice the share its cpus can use (cache_share_bytes) where that is less (docs/measurement.md).
[[nodiscard]] std::size_t cache_flush_bytes(std::size_t cache_bytes, std::size_t sharing_cpus);

}  // namespace kbench
