#pragma once
// The triad beside a kernel: a STREAM triad that `kbench run` times in the same interleaved turns as a large
// shape's implementations, so that the shape's bandwidth is compared with what the memory delivered at the
// same moments. The cached peak of `kbench calibrate` is the best of its rounds, measured minutes or days
// before: on a shared host a kernel timed in a slow stretch reads far below that burst without being any
// worse (docs/code-figures.md).

#include <kbench/backends/stream_kernels.hpp>
#include <kbench/bench_target.hpp>
#include <kbench/device.hpp>

#include <cstddef>
#include <string>

namespace kbench::suite {

struct triad_probe {
  bench_target target;        // one triad call (a = b + 3c over the probe's own arrays)
  double bytes_per_call = 0;  // [bytes] 3 arrays x 4 bytes per element
  std::string stores;         // stores_normal or stores_non_temporal: the kind the triad writes with
};

/// A triad over three fresh arrays of `elements` floats (a multiple of 4) on `device`, filled with 1, that
/// writes with `stores` (stores_non_temporal where the backend has such a kernel, the cpu; else normal
/// stores, and `stores` says so). Throws kbench::error for an unknown store kind or a backend without the
/// STREAM kernels.
[[nodiscard]] triad_probe make_triad_probe(const device_ptr& device, const std::string& stores,
                                           std::size_t elements = stream_default_elements);

/// [bytes per call] the least a shape moves for `kbench run` to time the triad beside it: `requested` when
/// positive (--triad-min-mib), else twice the host's last-level cache, at least 64 MiB, so that the shape
/// streams from memory as the triad does (and the triad's turns, which evict the caches, take nothing from a
/// shape that would have reused them).
[[nodiscard]] double triad_probe_min_bytes(double requested = 0);

}  // namespace kbench::suite
