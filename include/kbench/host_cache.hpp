#pragma once
// The host's caches: their sizes as sysfs lists them, and the flush that evicts them before a cold-cache
// sample (bench_options::flush_cache, device::flush_caches).

#include <cstddef>
#include <string_view>

namespace kbench {

/// Evicts the host's caches: first every core's private caches, each by a thread bound to that core (of the
/// cpus the calling thread may use) that writes and reads a buffer of twice their size, then the last-level
/// cache, by writing and reading a buffer of `bytes` bytes (0 = last_level_flush_bytes()) on the calling
/// thread. A flush from one core alone leaves another core's L2 as it was: a kernel that ran there found its
/// data still in it (kbench measure --flush-cache, cpu add [256,256], 768 KiB: 18-20 us a call against
/// torch's 57-75 us).
void flush_host_cache(std::size_t bytes = 0);
/// The host's last-level cache size [bytes] (sysfs; 32 MiB if unknown).
[[nodiscard]] std::size_t last_level_cache_bytes();
/// How much a flush writes to evict the last-level cache [bytes]: cache_flush_bytes of the listed LLC.
[[nodiscard]] std::size_t last_level_flush_bytes();

/// The part of the last-level cache [bytes] that a kernel's data can be expected to stay in: the cache, at
/// most max_cache_bytes_per_cpu per cpu sharing it. A virtual machine may list its host's whole cache: a
/// 2-cpu Xeon VM lists a 480 MiB L3 shared by its 2 cpus, yet a triad over 3 x 128 MiB ran at 36 GB/s, as
/// over 3 x 1 GiB (42 GB/s), against 58 GB/s over 3 x 16 MiB. Real caches stay below 32 MiB per logical cpu
/// (Zen 4: 4 MiB; AMD's stacked-cache EPYC 9184X: 96 MiB per 2 cores, 24 MiB per cpu with SMT), except
/// such a part with SMT off (48), where the share is then undercounted.
[[nodiscard]] std::size_t last_level_cache_share_bytes();
inline constexpr std::size_t max_cache_bytes_per_cpu = std::size_t{32} << 20;
/// The number of cpus in a sysfs cpu list such as "0-3,8,10-11" (7); 0 if malformed or empty.
[[nodiscard]] std::size_t count_cpu_list(std::string_view list);
/// `cache_bytes` capped at max_cache_bytes_per_cpu per sharing cpu; unchanged if that count is 0 (unknown).
[[nodiscard]] std::size_t cache_share_bytes(std::size_t cache_bytes, std::size_t sharing_cpus);
/// The bytes to write to evict a cache of `cache_bytes` shared by `sharing_cpus` cpus: the cache itself, or
/// twice the share its cpus can use (cache_share_bytes) where that is less. On the 2-cpu Xeon VM that lists a
/// 480 MiB L3: 128 MiB. `kbench measure --kernel add --shape [1024,1024] --backend cpu --flush-cache --repeat
/// 200` (12 MiB of operands), device medians of 2 processes each: 0.417-0.418 ms flushing 480 MiB,
/// 0.406-0.422 ms flushing 128 MiB (each run 5.7-5.9 s instead of 18.9-19.2 s), 0.29-0.34 ms flushing 64 MiB
/// (part of the operands stayed cached), 0.21-0.22 ms without a flush.
[[nodiscard]] std::size_t cache_flush_bytes(std::size_t cache_bytes, std::size_t sharing_cpus);

}  // namespace kbench
