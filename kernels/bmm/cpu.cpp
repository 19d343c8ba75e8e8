// bmm on the cpu backend: a packed, register-blocked GEMM in the style of BLIS / GotoBLAS, parallel over
// tasks (one batch entry x one panel of NB columns of C) that the workers take from a shared counter.
//
// Per task, over K in blocks of KB: the panel B[k0 : k0 + KB, n0 : n0 + NB] is packed into strips of NR = 2W
// columns (KB x NR contiguous floats each, zero-padded past N); then for each block of MB rows of A, the
// block A[m0 : m0 + MB, k0 : k0 + KB] is packed into strips of MR rows (for every k, the MR values of a
// column, zero-padded past M), and a micro-kernel computes each MR x NR tile of C: MR x 2 vector accumulators
// held in registers over the KB-deep block (per k: two vector loads of the B strip, MR broadcasts of A, 2 *
// MR multiply-adds, which the AVX2 / AVX-512 builds contract to FMAs), then added to C (stored on the first
// block). A B strip (KB * NR floats, 32 KiB at KB = 256 on AVX-512) stays in L1 while the A strips of the
// block stream past it from L2; the packed B panel (KB x NB) is reused by every row block, so packing B costs
// 1/M and packing A 1/NB of the multiply-adds. Tiles that overhang M or N are computed into a local tile and
// only their valid part is written.
// Config: ISA (vector width W: 4 SSE2, 8 AVX2, 16 AVX-512), MR (rows of the register tile), MB, NB, KB (block
// sizes [rows of C, columns of C, depth]).

#include <kbench/backends/cpu.hpp>
#include <kbench/error.hpp>

#include "../common/binding_checks.hpp"
#include "bmm.hpp"

#include "../common/cpu_rows_simd.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace kbench::kernels {

namespace {

using namespace simd;  // f32v, load, store (../common/cpu_rows_simd.hpp)

struct bmm_plan {
  std::size_t batch, m, n, k;  // problem [B, M, N, K]
  std::size_t mb, nb, kb;      // block sizes [rows, columns, depth]
};

// C[0:MR, 0:2W] (row stride ldc) = (accumulate ? C : 0) + sum over k < depth of a[k*MR + r] * b[k*2W + j].
template <int W, int MR>
[[gnu::always_inline]] inline void micro_tile(std::size_t depth, const float* a, const float* b, float* c,
                                              std::size_t ldc, bool accumulate) {
  f32v<W> acc0[MR];
  f32v<W> acc1[MR];
#pragma GCC unroll 16
  for (int r = 0; r < MR; ++r) acc0[r] = acc1[r] = f32v<W>{};
  for (std::size_t k = 0; k < depth; ++k) {
    const f32v<W> b0 = load<W>(b + k * 2 * W);
    const f32v<W> b1 = load<W>(b + k * 2 * W + W);
    const float* ak = a + k * MR;
#pragma GCC unroll 16
    for (int r = 0; r < MR; ++r) {
      acc0[r] += ak[r] * b0;  // a scalar operand: one broadcast (see cpu_rows_simd.hpp)
      acc1[r] += ak[r] * b1;
    }
  }
#pragma GCC unroll 16
  for (int r = 0; r < MR; ++r) {
    float* row = c + static_cast<std::size_t>(r) * ldc;
    if (accumulate) {
      acc0[r] += load<W>(row);
      acc1[r] += load<W>(row + W);
    }
    store<W>(row, acc0[r]);
    store<W>(row + W, acc1[r]);
  }
}

// Packs B[0:depth, 0:cols] (row stride ldb) into strips of 2W columns, zero-padded to whole strips.
template <int W>
[[gnu::always_inline]] inline void pack_b(const float* b, std::size_t ldb, std::size_t depth,
                                          std::size_t cols, float* out) {
  constexpr std::size_t nr = 2 * W;
  for (std::size_t j = 0; j < cols; j += nr, out += depth * nr) {
    const std::size_t valid = std::min(nr, cols - j);
    if (valid == nr) {
      for (std::size_t k = 0; k < depth; ++k) {
        store<W>(out + k * nr, load<W>(b + k * ldb + j));
        store<W>(out + k * nr + W, load<W>(b + k * ldb + j + W));
      }
    } else {
      for (std::size_t k = 0; k < depth; ++k) {
        std::size_t jj = 0;
        for (; jj < valid; ++jj) out[k * nr + jj] = b[k * ldb + j + jj];
        for (; jj < nr; ++jj) out[k * nr + jj] = 0.0f;
      }
    }
  }
}

// Packs A[0:rows, 0:depth] (row stride lda) into strips of MR rows: strip s holds, for every k, the MR values
// A[s*MR + r, k]; rows past `rows` are zeros.
template <int MR>
[[gnu::always_inline]] inline void pack_a(const float* a, std::size_t lda, std::size_t rows,
                                          std::size_t depth, float* out) {
  for (std::size_t i = 0; i < rows; i += MR, out += depth * MR) {
    const std::size_t valid = std::min<std::size_t>(MR, rows - i);
    for (std::size_t r = 0; r < valid; ++r) {
      const float* src = a + (i + r) * lda;
      for (std::size_t k = 0; k < depth; ++k) out[k * MR + r] = src[k];
    }
    for (std::size_t r = valid; r < MR; ++r) {
      for (std::size_t k = 0; k < depth; ++k) out[k * MR + r] = 0.0f;
    }
  }
}

// One task: C[batch][:, n0 : n0 + NB].
template <int W, int MR>
[[gnu::always_inline]] inline void bmm_task(const bmm_plan& p, const float* a, const float* b, float* c,
                                            std::size_t batch, std::size_t n0) {
  constexpr std::size_t nr = 2 * W;
  const std::size_t cols = std::min(p.nb, p.n - n0);
  const std::size_t strips_n = (cols + nr - 1) / nr;
  const std::size_t strips_m_max = (std::min(p.mb, p.m) + MR - 1) / MR;
  // Scratch per thread, kept across calls: no allocation (and no page faults) once warm.
  thread_local std::vector<float> b_panel;
  thread_local std::vector<float> a_block;
  b_panel.resize(std::max(b_panel.size(), p.kb * strips_n * nr));
  a_block.resize(std::max(a_block.size(), p.kb * strips_m_max * MR));
  alignas(64) float edge[MR * nr];  // a tile that overhangs M or N

  const float* ab = a + batch * p.m * p.k;
  const float* bb = b + batch * p.k * p.n;
  float* cb = c + batch * p.m * p.n;
  for (std::size_t k0 = 0; k0 < p.k; k0 += p.kb) {
    const std::size_t depth = std::min(p.kb, p.k - k0);
    const bool accumulate = k0 > 0;
    pack_b<W>(bb + k0 * p.n + n0, p.n, depth, cols, b_panel.data());
    for (std::size_t m0 = 0; m0 < p.m; m0 += p.mb) {
      const std::size_t rows = std::min(p.mb, p.m - m0);
      pack_a<MR>(ab + m0 * p.k + k0, p.k, rows, depth, a_block.data());
      for (std::size_t js = 0; js < strips_n; ++js) {
        const float* bs = b_panel.data() + js * depth * nr;
        const std::size_t j = js * nr;
        const std::size_t valid_cols = std::min(nr, cols - j);
        for (std::size_t i = 0; i < rows; i += MR) {
          const float* as = a_block.data() + i / MR * depth * MR;
          float* ct = cb + (m0 + i) * p.n + n0 + j;
          const std::size_t valid_rows = std::min<std::size_t>(MR, rows - i);
          if (valid_rows == MR && valid_cols == nr) {
            micro_tile<W, MR>(depth, as, bs, ct, p.n, accumulate);
          } else {
            micro_tile<W, MR>(depth, as, bs, edge, nr, false);
            for (std::size_t r = 0; r < valid_rows; ++r) {
              for (std::size_t jj = 0; jj < valid_cols; ++jj) {
                float& dst = ct[r * p.n + jj];
                dst = accumulate ? dst + edge[r * nr + jj] : edge[r * nr + jj];
              }
            }
          }
        }
      }
    }
  }
}

// One wrapper per ISA and MR; the task is inlined into it and compiled for that ISA.
using task_fn = void (*)(const bmm_plan&, const float*, const float*, float*, std::size_t, std::size_t);

template <int MR>
void task_sse2(const bmm_plan& p, const float* a, const float* b, float* c, std::size_t batch,
               std::size_t n0) {
  bmm_task<4, MR>(p, a, b, c, batch, n0);
}
template <int MR>
[[KBENCH_TARGET_AVX2]] void task_avx2(const bmm_plan& p, const float* a, const float* b, float* c,
                                      std::size_t batch, std::size_t n0) {
  bmm_task<8, MR>(p, a, b, c, batch, n0);
}
template <int MR>
[[KBENCH_TARGET_AVX512]] void task_avx512(const bmm_plan& p, const float* a, const float* b, float* c,
                                          std::size_t batch, std::size_t n0) {
  bmm_task<16, MR>(p, a, b, c, batch, n0);
}

}  // namespace

/// The register-tile heights the code is instantiated for; 16-register ISAs (SSE2, AVX2) take MR <= 6 (2 MR
/// accumulators + 2 B vectors + 1 broadcast), AVX-512's 32 registers MR <= 14.
bool bmm_cpu_mr_fits(std::int64_t isa_value, std::int64_t mr) {
  if (mr != 4 && mr != 6 && mr != 8 && mr != 12) return false;
  return isa_value == static_cast<std::int64_t>(isa::avx512) || mr <= 6;
}

namespace {

task_fn select(isa which, std::size_t mr) {
  switch (which) {
    case isa::sse2:
      return mr == 4 ? &task_sse2<4> : &task_sse2<6>;
    case isa::avx2:
      return mr == 4 ? &task_avx2<4> : &task_avx2<6>;
    case isa::avx512:
      return mr == 4   ? &task_avx512<4>
             : mr == 6 ? &task_avx512<6>
             : mr == 8 ? &task_avx512<8>
                       : &task_avx512<12>;
  }
  return nullptr;
}

}  // namespace

launcher bind_bmm_cpu(const kernel_args& args) {
  auto device = device_as<cpu::cpu_device>(args, "bmm/cpu", "a cpu device");
  const bmm_dims d = parse_bmm_shape(args.shape, "bmm/cpu");
  if (args.inputs.size() != 2 || !args.inputs[0] || !args.inputs[1]) {
    KBENCH_THROW("bmm/cpu takes 2 inputs (A, B), got {}", args.inputs.size());
  }
  const isa which = isa_of(args.config, "bmm/cpu");
  const std::size_t mr = positive(args.config, "MR", 4, "bmm/cpu");
  if (!bmm_cpu_mr_fits(static_cast<std::int64_t>(which), static_cast<std::int64_t>(mr))) {
    KBENCH_THROW("bmm/cpu: MR must be 4, 6, 8 or 12 (at most 6 below AVX-512), got {} with ISA {}", mr,
                 isa_labels()[static_cast<std::size_t>(which)]);
  }
  const bmm_plan p{static_cast<std::size_t>(d.batch),
                   static_cast<std::size_t>(d.m),
                   static_cast<std::size_t>(d.n),
                   static_cast<std::size_t>(d.k),
                   positive(args.config, "MB", 96, "bmm/cpu"),
                   positive(args.config, "NB", 256, "bmm/cpu"),
                   positive(args.config, "KB", 256, "bmm/cpu")};
  if (args.inputs[0]->size_bytes() < p.batch * p.m * p.k * sizeof(float) ||
      args.inputs[1]->size_bytes() < p.batch * p.k * p.n * sizeof(float)) {
    KBENCH_THROW("bmm/cpu: inputs too small for shape {}", to_string(args.shape));
  }
  const task_fn run = select(which, mr);

  buffer_ptr lhs = args.inputs[0];
  buffer_ptr rhs = args.inputs[1];
  buffer_ptr output = output_buffer(args, 0, p.batch * p.m * p.n * sizeof(float));
  const std::size_t panels = (p.n + p.nb - 1) / p.nb;  // [column panels per batch entry]
  return [device, lhs, rhs, output, p, panels, run]() {
    const float* a = cpu::float_data(lhs);
    const float* b = cpu::float_data(rhs);
    float* c = cpu::float_data(output);
    event_ptr done = device->launch([=](const cpu::parallel_context& ctx) {
      for_tasks(ctx, p.batch * panels, 1, [=](std::size_t begin, std::size_t end) {
        for (std::size_t t = begin; t < end; ++t) run(p, a, b, c, t / panels, t % panels * p.nb);
      });
    });
    return call_result{{done}, {output}};
  };
}

}  // namespace kbench::kernels
