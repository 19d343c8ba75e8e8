#pragma once
// STREAM's copy (b = a) and triad (a = b + 3 c) kernels on a device (cpu, opencl or cuda), over three arrays
// of n floats: what `kbench calibrate` times for the peak bandwidth, and the triad that `kbench run` times in
// the same turns as a large shape (triad_probe.hpp).

#include <kbench/buffer.hpp>
#include <kbench/call_result.hpp>
#include <kbench/device.hpp>

#include <cstddef>
#include <functional>
#include <string_view>

namespace kbench {

/// The store kinds of a bandwidth: normal stores (each written line is first read into the cache: the
/// read-for-ownership), or non-temporal ones (written to memory without that read).
inline constexpr const char* stores_normal = "normal";
inline constexpr const char* stores_non_temporal = "non-temporal";

/// Whether `text` names one of the store kinds above.
[[nodiscard]] inline bool is_store_kind(std::string_view text) {
  return text == stores_normal || text == stores_non_temporal;
}

/// The triad's s in a = b + s * c.
inline constexpr float stream_triad_scale = 3.0f;

/// [float32 elements] per array of `kbench calibrate` by default (128 MiB: far beyond any last-level cache).
inline constexpr std::size_t stream_default_elements = std::size_t{1} << 25;

/// One launch each; every launcher holds the arrays it uses. `copy_streaming` and `triad_streaming` are the
/// same kernels with non-temporal stores, on the cpu backend only (empty elsewhere: an OpenCL or CUDA
/// compiler picks its stores).
struct stream_kernels {
  std::function<call_result()> copy, triad;
  std::function<call_result()> copy_streaming, triad_streaming;
};

/// STREAM's three arrays a, b, c on a device, every element 1.0f.
struct stream_arrays {
  buffer_ptr a, b, c;
};

/// Allocates a, b, c of `elements` floats each on `device` and writes 1.0f into every element (written, so
/// that the first timed calls pay no page faults and read finite values).
[[nodiscard]] stream_arrays make_stream_arrays(const device_ptr& device, std::size_t elements);

/// Builds copy (b = a) and triad (a = b + stream_triad_scale * c) over a, b, c of `elements` floats each
/// (a multiple of 4: the OpenCL and CUDA kernels move float4) on `device`. Throws kbench::error for a backend
/// without them (torch).
[[nodiscard]] stream_kernels make_stream_kernels(const device_ptr& device, const buffer_ptr& a,
                                                 const buffer_ptr& b, const buffer_ptr& c,
                                                 std::size_t elements);

}  // namespace kbench
