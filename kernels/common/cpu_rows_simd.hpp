#pragma once
// SIMD building blocks of the row and matmul cpu kernels (sum, welford, layer_norm, rms_norm, the softmaxes,
// bmm): the "ISA" tuning parameter, GCC vector types of W floats (W = 4: SSE2, 8: AVX2, 16: AVX-512), helpers
// on them, and a dynamically scheduled parallel loop. Not a kernel folder: it has no CMakeLists.txt; kernels
// include it by relative path.
//
// The build has no -march flag, so code is compiled for x86-64 (SSE2) unless a function asks for more with a
// target attribute. A kernel writes its row loop once as an always_inline template over W and instantiates
// it in three wrappers, one per ISA (KBENCH_TARGET_AVX2 / KBENCH_TARGET_AVX512 / none); the template and the
// helpers below are inlined into the wrapper and compiled for its ISA (GCC's default -ffp-contract=fast then
// turns a * b + c into FMAs on AVX2 and AVX-512). The tuning parameter ISA picks the wrapper at bind time;
// the space's constraint drops what the cpu cannot run.
//
// There is no splat(x) helper on purpose: a helper that returns a vector built from a scalar is lowered
// lane by lane while still compiled for SSE2 (16 masked broadcasts for one AVX-512 splat); a scalar operand
// of a vector operation (v * s, v - s) compiles to one broadcast.
//
// Every helper that takes or returns a vector is an always_inline template, vectors passed by reference: a
// template over W is compiled for SSE2 where it is defined, and AVX or AVX-512 vectors passed or returned by
// value there draw -Wpsabi ABI warnings, some reported at the end of the translation unit. Being always
// inlined into the ISA wrappers, none of them is ever called through that ABI, so this header turns -Wpsabi
// off for the rest of the including file (not in a push/pop region: GCC reports some of these at the end of
// the file). References keep away the one note the pragma does not silence (64-byte parameters).

#include <kbench/backends/cpu.hpp>
#include <kbench/config.hpp>
#include <kbench/error.hpp>
#include <kbench/tune/space.hpp>

#include <xmmintrin.h>  // _mm_max_ps, _mm_min_ps: SSE, part of the x86-64 baseline

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#pragma GCC diagnostic ignored "-Wpsabi"

// Wrappers compiled for AVX2 + FMA and for AVX-512 (F, VL, BW, DQ: Skylake-SP and later) + FMA.
#define KBENCH_TARGET_AVX2 gnu::target("avx2,fma")
#define KBENCH_TARGET_AVX512 gnu::target("avx512f,avx512vl,avx512bw,avx512dq,avx2,fma")

namespace kbench::kernels::simd {

// --- the ISA parameter ---

/// Values of the enumeration parameter "ISA" (its index in isa_labels()).
enum class isa : std::int64_t { sse2 = 0, avx2 = 1, avx512 = 2 };

inline const std::vector<std::string>& isa_labels() {
  static const std::vector<std::string> labels{"sse2", "avx2", "avx512"};
  return labels;
}

/// Whether this cpu runs code compiled for `which` (the cpu backend's device is the host).
inline bool supported(isa which) {
  __builtin_cpu_init();  // may run before libgcc's own constructor (static registration)
  switch (which) {
    case isa::sse2:
      return true;
    case isa::avx2:
      return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    case isa::avx512:
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
             __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
             __builtin_cpu_supports("fma");
  }
  return false;
}

/// The widest ISA this cpu supports: the default of every ISA parameter, so that the default config is valid
/// on any x86-64 machine.
inline std::int64_t best_isa() {
  if (supported(isa::avx512)) return static_cast<std::int64_t>(isa::avx512);
  if (supported(isa::avx2)) return static_cast<std::int64_t>(isa::avx2);
  return static_cast<std::int64_t>(isa::sse2);
}

/// Adds the parameter ISA and the constraint that the cpu supports it. Among configs the final re-timing
/// cannot tell apart, the wider ISA wins: a memory-bound kernel ties at the memory's floor with every ISA
/// while the memory is slow, and only the wider one has the compute headroom for when it is fast
/// (docs/code-figures.md).

inline tune::space& add_isa(tune::space& s) {
  s.add(tune::parameter::enumeration("ISA", isa_labels()).prefer_higher_on_tie());
  s.add_constraint("ISA supported by the host cpu", [](const config& c, const device_info&) {
    return supported(static_cast<isa>(c.at("ISA")));
  });
  return s;
}

/// The config's ISA (default: the best supported); throws when the cpu cannot run it.
inline isa isa_of(const config& values, const char* who) {
  const auto found = values.find("ISA");
  const std::int64_t v = found == values.end() ? best_isa() : found->second;
  if (v < 0 || v >= static_cast<std::int64_t>(isa_labels().size())) {
    KBENCH_THROW("{}: ISA must be 0 (sse2), 1 (avx2) or 2 (avx512), got {}", who, v);
  }
  const auto which = static_cast<isa>(v);
  if (!supported(which)) KBENCH_THROW("{}: this cpu does not support ISA {}", who, isa_labels()[v]);
  return which;
}

/// A positive integer parameter of `values` (or `fallback` when absent); throws otherwise.
inline std::size_t positive(const config& values, const char* name, std::int64_t fallback, const char* who) {
  const auto found = values.find(name);
  const std::int64_t v = found == values.end() ? fallback : found->second;
  if (v <= 0) KBENCH_THROW("{}: {} must be positive, got {}", who, name, v);
  return static_cast<std::size_t>(v);
}

// --- scheduling ---

/// A loop body as a parallel loop's chunks hold it: a copy when it is small and trivially copyable (a
/// kernel's lambda of pointers and numbers), so that the pool hands it over by value
/// (parallel_context::parallel_for_copy) and a thread starting a chunk reads none of the caller's stack;
/// otherwise a pointer to it. A copy leaves room for the five words for_tasks adds to it (n, grain, its
/// counters, tasks and workers; six with padding) within parallel_context::max_copied_body: a larger loop
/// state would still work, by reference, but would be read from the caller's stack again.
template <class Body>
struct held_body {
  static constexpr bool by_value = std::is_trivially_copyable_v<Body> &&
                                   sizeof(Body) <= cpu::parallel_context::max_copied_body - 6 * sizeof(void*);
  std::conditional_t<by_value, Body, const Body*> held;
  void operator()(std::size_t begin, std::size_t end) const {
    if constexpr (by_value) {
      held(begin, end);
    } else {
      (*held)(begin, end);
    }
  }
};
template <class Body>
held_body<Body> hold(const Body& body) {
  if constexpr (held_body<Body>::by_value) {
    return {body};
  } else {
    return {&body};
  }
}

/// Calls body(begin, end) over [0, n) in tasks of `grain` items. Worker w of the pool owns the w-th
/// contiguous block of tasks and runs it in order, so that a kernel called again on the same buffers finds
/// its block in the same core's cache (the pool runs chunk w on thread w, cpu thread_pool.hpp); a worker
/// that has finished its block takes the tasks still left in the others', so a worker that was descheduled
/// or woke up late does not hold the loop back. One task (grain >= n) runs on the caller alone, without
/// waking anyone; no more tasks than workers go to the pool as one chunk each, whose claim already lets a
/// late worker's chunk be run by another.
///
/// A worker starting its chunk reads no line of the caller's stack or heap (each a transfer between cores):
/// the loop's state, the body included (held_body), goes to the pool by value, and the per-worker counters
/// are an array on the caller's stack for up to max_stack_workers workers, not a vector on the heap
/// (docs/code-figures.md).

template <class Body>
void for_tasks(const cpu::parallel_context& ctx, std::size_t n, std::size_t grain, const Body& body) {
  grain = std::max<std::size_t>(grain, 1);
  const std::size_t tasks = (n + grain - 1) / grain;
  if (tasks <= 1) {
    if (n > 0) body(std::size_t{0}, n);
    return;
  }
  const std::size_t workers = std::min<std::size_t>(ctx.workers(), tasks);
  const held_body<Body> run = hold(body);
  if (tasks == workers) {  // one task per worker: the pool's chunks are the tasks
    ctx.parallel_for_copy(tasks, 1, [run, n, grain](std::size_t first, std::size_t last) {
      for (std::size_t t = first; t < last; ++t) run(t * grain, std::min(n, (t + 1) * grain));
    });
    return;
  }
  struct alignas(64) counter {  // one cache line each: the workers bump their own
    std::atomic<std::size_t> next;
  };
  constexpr std::size_t max_stack_workers = 8;
  counter on_stack[max_stack_workers];
  std::vector<counter> on_heap(workers > max_stack_workers ? workers : 0);
  counter* const next = workers > max_stack_workers ? on_heap.data() : on_stack;
  for (std::size_t w = 0; w < workers; ++w)
    next[w].next.store(tasks * w / workers, std::memory_order_relaxed);
  ctx.parallel_for_copy(workers, 1, [run, n, grain, next, tasks, workers](std::size_t first, std::size_t) {
    for (std::size_t k = 0; k < workers; ++k) {
      const std::size_t w = (first + k) % workers;        // its own block first, then the others'
      const std::size_t end = tasks * (w + 1) / workers;  // the first task after block w
      for (std::size_t t = next[w].next.fetch_add(1, std::memory_order_relaxed); t < end;
           t = next[w].next.fetch_add(1, std::memory_order_relaxed)) {
        run(t * grain, std::min(n, (t + 1) * grain));
      }
    }
  });
}

// --- vector types and helpers ---

template <int W>
struct vec_types;
template <>
struct vec_types<2> {
  typedef float f32 __attribute__((vector_size(8)));
  typedef std::int32_t i32 __attribute__((vector_size(8)));
};
template <>
struct vec_types<4> {
  typedef float f32 __attribute__((vector_size(16)));
  typedef std::int32_t i32 __attribute__((vector_size(16)));
};
template <>
struct vec_types<8> {
  typedef float f32 __attribute__((vector_size(32)));
  typedef std::int32_t i32 __attribute__((vector_size(32)));
};
template <>
struct vec_types<16> {
  typedef float f32 __attribute__((vector_size(64)));
  typedef std::int32_t i32 __attribute__((vector_size(64)));
};

/// W floats (one register of the ISA: 4 SSE, 8 AVX, 16 AVX-512); i32v: W int32.
template <int W>
using f32v = typename vec_types<W>::f32;
template <int W>
using i32v = typename vec_types<W>::i32;

/// Unaligned load / store (memcpy compiles to one vector move).
template <int W>
[[gnu::always_inline]] inline f32v<W> load(const float* p) {
  f32v<W> v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

template <int W>
[[gnu::always_inline]] inline void store(float* p, const f32v<W>& v) {
  std::memcpy(p, &v, sizeof v);
}

template <int W>
[[gnu::always_inline]] inline f32v<W> vmax(const f32v<W>& a, const f32v<W>& b) {
  return a > b ? a : b;
}

/// The lower and upper halves of a vector.
template <int W>
[[gnu::always_inline]] inline f32v<W / 2> low_half(const f32v<W>& v) {
  if constexpr (W == 16) {
    return __builtin_shufflevector(v, v, 0, 1, 2, 3, 4, 5, 6, 7);
  } else if constexpr (W == 8) {
    return __builtin_shufflevector(v, v, 0, 1, 2, 3);
  } else {
    static_assert(W == 4);
    return __builtin_shufflevector(v, v, 0, 1);
  }
}

template <int W>
[[gnu::always_inline]] inline f32v<W / 2> high_half(const f32v<W>& v) {
  if constexpr (W == 16) {
    return __builtin_shufflevector(v, v, 8, 9, 10, 11, 12, 13, 14, 15);
  } else if constexpr (W == 8) {
    return __builtin_shufflevector(v, v, 4, 5, 6, 7);
  } else {
    static_assert(W == 4);
    return __builtin_shufflevector(v, v, 2, 3);
  }
}

/// Sum of the lanes, pairwise (halves added until one lane is left).
template <int W>
[[gnu::always_inline]] inline float hsum(const f32v<W>& v) {
  if constexpr (W == 2) {
    return v[0] + v[1];
  } else {
    return hsum<W / 2>(low_half<W>(v) + high_half<W>(v));
  }
}

/// acc[0] += acc[1] + ... + acc[U - 1], pairwise (the upper half onto the lower half until one is left).
/// Written with compile-time indices: the same fold as a loop over a variable width kept GCC 12 from holding
/// the accumulators in registers (SRA runs before the loop is unrolled), so it zeroed them in memory with a
/// `rep stos` per row and spilled one (sum [1024,2048], UNROLL 4: 8.6% of the kernel's samples on that
/// rep stos).
template <int W, int U, int Width = U / 2, int I = 0>
[[gnu::always_inline]] inline void fold(f32v<W> (&acc)[U]) {
  if constexpr (Width > 0) {
    if constexpr (I < Width) {
      acc[I] += acc[I + Width];
      fold<W, U, Width, I + 1>(acc);
    } else {
      fold<W, U, Width / 2, 0>(acc);
    }
  }
}

/// [floats] how far ahead of its loads the pass of a row kernel that reads x from memory asks for x with a
/// software prefetch: 2 KiB, 32 cache lines (see prefetch_ahead). The elementwise loops' page-ahead distance
/// (cpu_simd.hpp) won with a kernel timed alone but lost in kbench run, where the kernel's turns alternate
/// with torch's and a triad's: lines asked for that far ahead into L1 are evicted before they are read
/// (docs/code-figures.md).

inline constexpr std::size_t prefetch_distance = 512;

/// Prefetches the lines of [p + distance, p + distance + floats) into all cache levels (distance in floats).
/// A row kernel reads a row of x from memory (its first pass), then works on the row in L1/L2 (its second
/// pass writes y): while it does, no load asks for x, and the hardware prefetcher, which follows the loads,
/// starts each row's stream again from cold. Asking ahead in the first pass keeps x coming; near a row's end
/// it asks for the next row (rows are contiguous), and past the end of x it asks for lines nobody reads (a
/// prefetch never faults). The address is formed as an integer: past the end of x, pointer arithmetic would
/// be undefined. It pays most with STREAM 1, where pass 1 reads x and nothing else from memory
/// (docs/code-figures.md).

[[gnu::always_inline]] inline void prefetch_ahead(const float* p, std::size_t floats,
                                                  std::size_t distance = prefetch_distance) {
  const auto ahead = reinterpret_cast<std::uintptr_t>(p) + distance * sizeof(float);
  constexpr std::size_t line = 64;  // [bytes]
  for (std::size_t offset = 0; offset < floats * sizeof(float); offset += line) {
    __builtin_prefetch(reinterpret_cast<const void*>(ahead + offset));
  }
}

/// Asks for the cache line of the next row at float offset `at` into L2 (not L1), once per line (`at` a
/// multiple of the vector width); `next_row` null: nothing. A row kernel calls it, with the next row of its
/// task, in one of its passes over the row: the row's compute then overlaps the next row's reads,
/// where otherwise memory would idle until the next row's first pass (whose prefetch_ahead reaches only 2 KiB
/// ahead, and then finds the row in L2). L2 rather than L1: the row, w and b (16 KiB each at 4096 columns)
/// already fill L1. The next row of the same task only: the next task's rows may go to the other worker, and
/// reading them here would double their traffic. Which pass asks is measured, not a rule: layer_norm and
/// welford ask in their normalize pass, the softmaxes in their first pass (the exps). The softmaxes and
/// welford ask with STREAM 1 only: with STREAM 0 the next row competes in L2 with y's lines, and the shapes
/// are mostly cache resident (docs/code-figures.md).

[[gnu::always_inline]] inline void prefetch_next_row(const float* next_row, std::size_t at) {
  constexpr std::size_t line = 16;  // [floats] per 64-byte cache line
  if (next_row != nullptr && at % line == 0) __builtin_prefetch(next_row + at, 0, 1);
}

/// The row after r when it is in the same task [.., end), else null (see prefetch_next_row).
[[gnu::always_inline]] inline const float* next_row_in_task(const float* x, std::size_t cols, std::size_t r,
                                                            std::size_t end) {
  return r + 1 < end ? x + (r + 1) * cols : nullptr;
}

/// Largest lane.
template <int W>
[[gnu::always_inline]] inline float hmax(const f32v<W>& v) {
  if constexpr (W == 2) {
    return v[0] > v[1] ? v[0] : v[1];
  } else {
    return hmax<W / 2>(vmax<W / 2>(low_half<W>(v), high_half<W>(v)));
  }
}

/// Whether some lane of v is greater than `bound` (a NaN lane is not). With 16 lanes one compare into a mask
/// register, instead of hmax's four shuffles and four maxes (inline assembly, for the reason given at
/// times_exp2).
template <int W>
[[gnu::always_inline]] inline bool any_greater(const f32v<W>& v, float bound) {
  if constexpr (W == 16) {
    const f32v<W> threshold = f32v<W>{} + bound;
    unsigned short mask;
    asm("vcmpps $14, %2, %1, %0" : "=Yk"(mask) : "v"(v), "v"(threshold));  // 14: greater than
    return mask != 0;
  } else {
    return hmax<W>(v) > bound;
  }
}

/// x clamped to [lo, hi] per lane, NaN kept: (x < lo ? lo : x), then (x > hi ? hi : x). As one maxps and one
/// minps with x as the second operand, which x86 returns when a lane holds a NaN; GCC would compile the
/// selects to a compare and a blend each (it may only use maxps for them with -ffinite-math-only). Inline
/// assembly for AVX and AVX-512, for the reason given at times_exp2.
template <int W>
[[gnu::always_inline]] inline f32v<W> clamp_keeping_nan(const f32v<W>& x, const f32v<W>& lo,
                                                        const f32v<W>& hi) {
  if constexpr (W == 4) {
    return _mm_min_ps(hi, _mm_max_ps(lo, x));
  } else {
    f32v<W> raised;
    asm("vmaxps %2, %1, %0" : "=v"(raised) : "v"(lo), "v"(x));
    f32v<W> result;
    asm("vminps %2, %1, %0" : "=v"(result) : "v"(hi), "v"(raised));
    return result;
  }
}

/// e * 2^n per lane for integral n (held as floats). With 16 lanes (AVX-512), one vscalefps, which also
/// rounds a result below the normal range to the nearest denormal and overflows to inf, so that it takes any
/// n; otherwise the exponent bits of 2^n are built and multiplied in, which needs n in [-126, 127] (the
/// caller clamps). vscalefps is written as inline assembly: its intrinsic (_mm512_scalef_ps) cannot be
/// inlined into this template, which is compiled for SSE2 where it is defined (see the top of this file),
/// while the assembly is only emitted where the template is inlined into an AVX-512 wrapper (W = 16 is
/// only instantiated there). It replaces 4 vector operations (convert, add, shift, multiply) by one;
/// exp_full_range (cpu_simd.hpp) splits 2^n in two factors on the other ISAs and saves 8.
template <int W>
[[gnu::always_inline]] inline f32v<W> times_exp2(const f32v<W>& e, const f32v<W>& n) {
  if constexpr (W == 16) {
    f32v<W> result;
    asm("vscalefps %2, %1, %0" : "=v"(result) : "v"(e), "v"(n));
    return result;
  } else {
    return e * std::bit_cast<f32v<W>>((__builtin_convertvector(n, i32v<W>) + 127) << 23);
  }
}

/// The core of the cpu exps: n = round(x / ln2) (out) and exp(r) for r = x - n ln2, |r| <= ln2 / 2, by a
/// polynomial of degree `Degree`; the caller clamps x and applies 2^n (times_exp2).
/// - 7: Cephes' expf, relative error 7e-8 (about 1 ulp) for the exp kernel, whose output is the exp itself.
/// - 5: a least-squares fit of the relative error at 400 Chebyshev nodes on [-ln2/2, ln2/2], relative error
///   1.7e-7 (about 3 ulp; both figures: evaluated in float with fused multiply-adds at 200001 points), two
///   multiply-adds fewer, for kernels where the exp is a step (the softmaxes, swiglu) and whose tolerance
///   (1e-5) leaves ample room; their exp-bound loops gain (docs/code-figures.md). Its last steps are
///   1 + r (1 + p r), two multiply-adds, where degree 7 keeps Cephes' 1 + r + p r^2 (three operations):
///   1.66e-7 against 1.78e-7 by the same evaluation.

template <int W, int Degree>
[[gnu::always_inline]] inline f32v<W> exp_reduced(const f32v<W>& x, f32v<W>& n) {
  static_assert(Degree == 5 || Degree == 7, "exp_reduced: degree 5 or 7");
  // round(x / ln2) by adding and subtracting 1.5 * 2^23 (the build has no -ffast-math to fold it away).
  n = (x * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
  const f32v<W> r = (x - n * 0.693359375f) - n * -2.12194440e-4f;  // ln2 in two parts: n * ln2_hi is exact
  f32v<W> p;
  if constexpr (Degree == 7) {
    p = r * 1.9875691500e-4f + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    return p * r * r + r + 1.0f;
  } else {
    p = r * 8.333837950e-3f + 4.189857794e-2f;
    p = p * r + 1.666688638e-1f;
    p = p * r + 4.999914257e-1f;
    return (p * r + 1.0f) * r + 1.0f;
  }
}

/// exp(x) per lane for the softmaxes and swiglu: exp_reduced of degree 5 (relative error 1.7e-7), times 2^n
/// (times_exp2) in one scaling, where exp_full_range (cpu_simd.hpp) needs two off AVX-512 (5 vector
/// operations more). x is raised to -87 (NaN kept): below, the result is ~1.6e-38 instead of a denormal or 0
/// (and -inf gives that rather than NaN from inf - inf in the reduction); absolute errors far below any
/// tolerance where these callers use it (a softmax's x - max <= 0; swiglu's 1 + exp(-b), see its silu).
/// Below 16 lanes x is also lowered to 88 so that 2^n stays a normal float (~1.7e38 instead of up to inf);
/// vscalefps takes any n and overflows to inf itself, so AVX-512 saves that minps (docs/code-figures.md).

template <int W>
[[gnu::always_inline]] inline f32v<W> exp(const f32v<W>& arg) {
  const f32v<W> lo = f32v<W>{} - 87.0f;  // constants: folded into vector constants
  f32v<W> x;
  if constexpr (W == 16) {
    asm("vmaxps %2, %1, %0" : "=v"(x) : "v"(lo), "v"(arg));
  } else {
    x = clamp_keeping_nan<W>(arg, lo, f32v<W>{} + 88.0f);
  }
  f32v<W> n;
  const f32v<W> exp_r = exp_reduced<W, 5>(x, n);
  return times_exp2<W>(exp_r, n);
}

}  // namespace kbench::kernels::simd
