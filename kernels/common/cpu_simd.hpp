#pragma once
// Building blocks of the elementwise cpu kernels (exp, add, geglu, swiglu, low_mem_dropout), on top of the
// ISA parameter, vector types, task loop and clamped exp of cpu_rows_simd.hpp: uint32 vectors, an exp over
// the whole float range, non-temporal stores (also used by the row kernels that write a row per row:
// layer_norm, rms_norm, welford, the softmaxes), the elementwise driver `map` and its row form for the gated
// linear units, `gated_rows`. Not a kernel folder: it has no CMakeLists.txt; kernels include it by relative
// path.
//
// A kernel writes its vector operation once as an always_inline lambda over W-float vectors, runs it through
// map<W> in a template, and instantiates the template in three wrappers (none, KBENCH_TARGET_AVX2,
// KBENCH_TARGET_AVX512 with W = 4, 8, 16: one register of the ISA each), which its ISA parameter picks at
// bind time. Vectors as wide as the ISA's registers matter: GCC splits a wider generic vector into registers
// for arithmetic, but turns its comparisons and selects (a < b ? a : b) into scalar code, 7x slower.

#include "cpu_rows_simd.hpp"

#include <xmmintrin.h>  // _mm_stream_ps, _mm_sfence: SSE, part of the x86-64 baseline

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace kbench::kernels::simd {

template <int W>
struct u32_type;
template <>
struct u32_type<4> {
  typedef std::uint32_t type __attribute__((vector_size(16)));
};
template <>
struct u32_type<8> {
  typedef std::uint32_t type __attribute__((vector_size(32)));
};
template <>
struct u32_type<16> {
  typedef std::uint32_t type __attribute__((vector_size(64)));
};

/// W uint32 lanes (wrapping arithmetic, logical shifts).
template <int W>
using u32v = typename u32_type<W>::type;

/// Lane k holds k.
template <int W>
[[gnu::always_inline]] inline u32v<W> lane_index() {
  u32v<W> v{};
  for (int k = 0; k < W; ++k) v[k] = static_cast<std::uint32_t>(k);
  return v;
}

/// Non-temporal store of one vector to a 16-byte aligned address: the line goes to memory without first being
/// read into the cache (no read-for-ownership), which saves a third of the traffic of y = f(x) once y no
/// longer fits the cache, and costs a trip to memory when it would have. As SSE movntps of 4 lanes, which the
/// write-combining buffers merge into whole lines (the AVX forms would need intrinsics of those ISAs, which
/// GCC does not inline into a template compiled for SSE2). stream_fence() before the results are handed over.
template <int W>
[[gnu::always_inline]] inline void store_stream(float* p, const f32v<W>& v) {
  if constexpr (W == 4) {
    _mm_stream_ps(p, v);
  } else {
    store_stream<W / 2>(p, low_half<W>(v));
    store_stream<W / 2>(p + W / 2, high_half<W>(v));
  }
}

/// Orders the earlier non-temporal stores before later stores (they are weakly ordered on x86).
[[gnu::always_inline]] inline void stream_fence() {
  _mm_sfence();
}

/// Up to this output size [bytes] non-temporal stores lose: the inputs and the output of a call stay in the
/// last-level cache until the next call, and streaming sends the output to memory every time; from 8 MiB
/// outputs on the tuner picks streaming for the large kernels (docs/code-figures.md).

inline constexpr std::int64_t cache_resident_output_bytes = std::int64_t{4} << 20;

/// Adds the parameter STREAM (0/1: non-temporal stores of the output) for a kernel whose output takes
/// `output_bytes`, 1 only where that is more than cache_resident_output_bytes.
inline tune::space& add_stream(tune::space& s, std::int64_t output_bytes) {
  s.add(tune::parameter::boolean("STREAM"));
  s.add_constraint("STREAM only for an output of more than 4 MiB",
                   [output_bytes](const config& c, const device_info&) {
                     return c.at("STREAM") == 0 || output_bytes > cache_resident_output_bytes;
                   });
  return s;
}

/// The config's STREAM (0, normal stores, when absent): whether the output goes out through non-temporal
/// stores. Throws unless 0 or 1.
inline bool stream_of(const config& values, const char* who) {
  const auto found = values.find("STREAM");
  const std::int64_t v = found == values.end() ? 0 : found->second;
  if (v != 0 && v != 1) KBENCH_THROW("{}: STREAM must be 0 or 1, got {}", who, v);
  return v == 1;
}

/// y[i .. i + W) = vec(i) for i = 0, W, 2W, ... over the whole vectors of a row of n floats; returns where
/// they end (the caller writes the n % W floats after it). With `stream` and y 16-byte aligned (a row of a
/// multiple of 4 floats in a 64-byte aligned buffer), through non-temporal stores, which spare the
/// read-for-ownership of every line of y (a third of the traffic of a row kernel that reads x once from
/// memory and writes y); otherwise through normal stores. `vec` is an always_inline lambda, called in order
/// of i. The caller issues stream_fence() before it hands y over.
template <int W, class Vec>
[[gnu::always_inline]] inline std::size_t write_vectors(float* y, std::size_t n, bool stream,
                                                        const Vec& vec) {
  constexpr auto lanes = static_cast<std::size_t>(W);
  std::size_t i = 0;
  if (stream && reinterpret_cast<std::uintptr_t>(y) % 16 == 0) {
    for (; i + lanes <= n; i += lanes) store_stream<W>(y + i, vec(i));
  } else {
    for (; i + lanes <= n; i += lanes) store<W>(y + i, vec(i));
  }
  return i;
}

/// exp(x) per lane over the whole float range, Cephes' expf: x = n ln2 + r with |r| <= ln2 / 2, exp(r) by a
/// degree-7 polynomial (relative error < 1e-7), 2^n applied with AVX-512's vscalefps (times_exp2), on the
/// other ISAs as 2^(n/2) * 2^(n - n/2) so that both factors are normal floats over the clamped range [-104,
/// 89]: the result overflows to +inf above 88.72 and underflows through the denormals to 0 below -87.3, like
/// libm's expf (exp<W> of cpu_rows_simd.hpp clamps to [-87, 88] instead, which the exp kernel cannot afford).
/// NaN stays NaN.
template <int W>
[[gnu::always_inline]] inline f32v<W> exp_full_range(const f32v<W>& arg) {
  const f32v<W> lo = f32v<W>{} - 104.0f;  // constants: folded into vector constants
  const f32v<W> hi = f32v<W>{} + 89.0f;
  const f32v<W> x = clamp_keeping_nan<W>(arg, lo, hi);
  f32v<W> n;
  const f32v<W> exp_r = exp_reduced<W, 7>(x, n);
  if constexpr (W == 16) {
    return times_exp2<W>(exp_r, n);  // takes any n
  } else {
    const i32v<W> ni = __builtin_convertvector(n, i32v<W>);  // in [-150, 129]
    const i32v<W> half = ni >> 1;                            // in [-75, 64]
    const f32v<W> scale_a = std::bit_cast<f32v<W>>((half + 127) << 23);
    const f32v<W> scale_b = std::bit_cast<f32v<W>>((ni - half + 127) << 23);
    return exp_r * scale_a * scale_b;
  }
}

/// [bytes] how far ahead of its loads map's non-temporal loop (STREAM = 1, outputs of more than 4 MiB) asks
/// for its inputs with a software prefetch: one 4 KiB page. The hardware prefetcher follows the loads within
/// a physical 4 KiB page (in a VM a guest huge page need not be one on the host) and falls behind when the
/// loop computes between its loads (exp's polynomial); the operands are also partly in the host's last-level
/// cache between calls, which answers faster the more lines are asked for at once. The normal-store loop
/// (STREAM 0: cache-resident shapes) does without; it measured the same with it (docs/code-figures.md).

inline constexpr std::uintptr_t stream_prefetch_distance = 4096;

/// Asks for the line stream_prefetch_distance bytes past p, where p is the input's vector at float index i
/// of a loop that steps W floats: once per 64-byte line (every vector at 16 lanes, every other one at 8,
/// every fourth at 4). The address is formed as an integer: past the end of the input, pointer arithmetic
/// would be undefined, and a prefetch never faults.
template <int W>
[[gnu::always_inline]] inline void prefetch_stream_input(const float* p, std::size_t i) {
  constexpr std::size_t line_floats = 64 / sizeof(float);
  if (i % line_floats < static_cast<std::size_t>(W)) {
    __builtin_prefetch(
        reinterpret_cast<const void*>(reinterpret_cast<std::uintptr_t>(p) + stream_prefetch_distance));
  }
}

/// y[i] = op(x0 vector at i, x1 vector at i, first + i) for i in [0, n), W lanes at a time: the elementwise
/// driver. `op` (an always_inline lambda, so that it takes the ISA of the calling wrapper) gets the vectors
/// of x0 and x1 (unary kernels pass x1 = x0 and ignore it: the second load is dead) and the index of the
/// vector's first element in the whole tensor. The last partial vector goes through zero-padded copies with
/// the same arithmetic. With `stream`, the output is written with non-temporal stores from its first 64-byte
/// boundary on (the elements before it go through the padded copies too), and the inputs are asked for a
/// page ahead (prefetch_stream_input).
template <int W, class Op>
[[gnu::always_inline]] inline void map(float* __restrict y, const float* x0, const float* x1,
                                       std::size_t first, std::size_t n, bool stream, const Op& op) {
  constexpr auto lanes = static_cast<std::size_t>(W);
  const auto partial = [&](std::size_t i, std::size_t count) __attribute__((always_inline)) {
    float a[lanes] = {};
    float b[lanes] = {};
    float out[lanes];
    std::memcpy(a, x0 + i, count * sizeof(float));
    std::memcpy(b, x1 + i, count * sizeof(float));
    store<W>(out, op(load<W>(a), load<W>(b), first + i));
    std::memcpy(y + i, out, count * sizeof(float));
  };
  std::size_t i = 0;
  if (stream) {
    constexpr std::size_t line = 64;                                            // [bytes]
    const std::size_t misaligned = reinterpret_cast<std::uintptr_t>(y) % line;  // [bytes], a multiple of 4
    for (std::size_t head = misaligned == 0 ? 0 : std::min(n, (line - misaligned) / sizeof(float)); i < head;
         i += std::min(lanes, head - i)) {
      partial(i, std::min(lanes, head - i));
    }
    for (; i + lanes <= n; i += lanes) {
      prefetch_stream_input<W>(x0 + i, i);
      if (x1 != x0) prefetch_stream_input<W>(x1 + i, i);
      store_stream<W>(y + i, op(load<W>(x0 + i), load<W>(x1 + i), first + i));
    }
    stream_fence();
  } else {
    for (; i + lanes <= n; i += lanes) store<W>(y + i, op(load<W>(x0 + i), load<W>(x1 + i), first + i));
  }
  if (i < n) partial(i, n - i);
}

/// Rows [first, last) of out [M, N] = a * gate(b) from x [M, 2N] = [a | b], the gated linear units (geglu,
/// swiglu); `gate` is an always_inline lambda over W-float vectors. A row reads two streams N floats apart, a
/// and b. The next row's a starts where this row's b ends, so the hardware prefetcher carries on into it, but
/// its b starts N floats further, from cold: the loop asks for the next row's b (in the same task) while it
/// works on this row (prefetch_next_row; docs/code-figures.md).

template <int W, class Gate>
[[gnu::always_inline]] inline void gated_rows(const float* x, float* y, std::size_t first, std::size_t last,
                                              std::size_t cols, bool stream, const Gate& gate) {
  for (std::size_t r = first; r < last; ++r) {
    const float* a = x + r * 2 * cols;
    const float* next_b = r + 1 < last ? a + 3 * cols : nullptr;
    map<W>(
        y + r * cols, a, a + cols, 0, cols, stream,
        [ next_b, &gate ](const f32v<W>& av, const f32v<W>& bv, std::size_t at)
            __attribute__((always_inline)) {
              prefetch_next_row(next_b, at);
              return av * gate(bv);
            });
  }
}

}  // namespace kbench::kernels::simd
