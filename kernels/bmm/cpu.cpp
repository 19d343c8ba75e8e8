// bmm on the cpu backend: a cache-blocked kernel, parallel over (batch x blocks of MB rows of C).
// For each block of MB rows and each panel of NB columns, the block of C is accumulated in a local buffer
// (MB x NB floats, L2-resident) over K in steps of KB: the B panel [KB x NB] is packed as tiles of KB x 16
// contiguous floats (zero-padded past N), then a 2 x 16 micro-kernel runs over each tile for every row pair
// of the block, its 2 x 16 accumulators in registers for the whole KB depth; A is read in place (its rows are
// contiguous). Config: MB, NB, KB = block sizes [rows of C, columns of C (a multiple of 16), depth].

#include <kbench/backends/cpu.hpp>
#include <kbench/error.hpp>

#include "bmm.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

namespace kbench::kernels {

namespace {

constexpr std::size_t lanes =
    16;  // columns per micro-tile; NB and the padded panel width are multiples of it

// The micro-kernels keep a 2 x 16 (or 1 x 16) tile of C in registers for the whole depth of the panel: per k,
// four vector loads of the panel and two scalars of A feed 16 multiply-adds (64 flops). GCC vector extensions
// (4 floats = one SSE register) make the register tile explicit; plain arrays would be spilled to memory.
using f32x4 = float __attribute__((vector_size(16)));

f32x4 load4(const float* p) {
  f32x4 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

void store4(float* p, f32x4 v) {
  std::memcpy(p, &v, sizeof v);
}

// c0[0, 16) += sum_k a0[k] * tile[k, :] and c1 likewise with a1; `tile` is depth x 16 contiguous floats.
void micro_2x16(const float* a0, const float* a1, const float* tile, std::size_t depth, float* c0,
                float* c1) {
  f32x4 r00 = load4(c0), r01 = load4(c0 + 4), r02 = load4(c0 + 8), r03 = load4(c0 + 12);
  f32x4 r10 = load4(c1), r11 = load4(c1 + 4), r12 = load4(c1 + 8), r13 = load4(c1 + 12);
  for (std::size_t k = 0; k < depth; ++k) {
    const float* p = tile + k * lanes;
    const f32x4 b0 = load4(p), b1 = load4(p + 4), b2 = load4(p + 8), b3 = load4(p + 12);
    const float x = a0[k];
    const float y = a1[k];
    r00 += x * b0;
    r01 += x * b1;
    r02 += x * b2;
    r03 += x * b3;
    r10 += y * b0;
    r11 += y * b1;
    r12 += y * b2;
    r13 += y * b3;
  }
  store4(c0, r00), store4(c0 + 4, r01), store4(c0 + 8, r02), store4(c0 + 12, r03);
  store4(c1, r10), store4(c1 + 4, r11), store4(c1 + 8, r12), store4(c1 + 12, r13);
}

void micro_1x16(const float* a0, const float* tile, std::size_t depth, float* c0) {
  f32x4 r00 = load4(c0), r01 = load4(c0 + 4), r02 = load4(c0 + 8), r03 = load4(c0 + 12);
  for (std::size_t k = 0; k < depth; ++k) {
    const float* p = tile + k * lanes;
    const float x = a0[k];
    r00 += x * load4(p);
    r01 += x * load4(p + 4);
    r02 += x * load4(p + 8);
    r03 += x * load4(p + 12);
  }
  store4(c0, r00), store4(c0 + 4, r01), store4(c0 + 8, r02), store4(c0 + 12, r03);
}

struct blocking {
  std::size_t batch, m, n, k;  // problem [B, M, N, K]
  std::size_t mb, nb, kb;      // block sizes
};

// One task: rows [m0, m0 + mb) of C[b]. `panel` holds kb x nb floats, `acc` mb x nb.
void block_task(const blocking& g, const float* a, const float* b, float* c, std::size_t batch,
                std::size_t m0, std::vector<float>& panel, std::vector<float>& acc) {
  const std::size_t rows = std::min(g.mb, g.m - m0);
  const float* ab = a + batch * g.m * g.k;
  const float* bb = b + batch * g.k * g.n;
  float* cb = c + batch * g.m * g.n;
  for (std::size_t n0 = 0; n0 < g.n; n0 += g.nb) {
    const std::size_t cols = std::min(g.nb, g.n - n0);
    const std::size_t width = (cols + lanes - 1) / lanes * lanes;  // padded panel / accumulator row [floats]
    std::fill(acc.begin(), acc.begin() + static_cast<std::ptrdiff_t>(rows * width), 0.0f);
    for (std::size_t k0 = 0; k0 < g.k; k0 += g.kb) {
      const std::size_t depth = std::min(g.kb, g.k - k0);
      // Pack B[k0 : k0 + depth, n0 : n0 + cols] as width / 16 tiles of depth x 16 contiguous floats (the
      // order the micro-kernel reads them in), zero-padding the columns past `cols`.
      for (std::size_t j = 0; j < width; j += lanes) {
        const std::size_t valid = std::min(lanes, cols - std::min(cols, j));
        float* tile = panel.data() + j * depth;
        for (std::size_t kk = 0; kk < depth; ++kk) {
          if (valid > 0) {
            const float* src = bb + (k0 + kk) * g.n + n0 + j;
            std::copy(src, src + valid, tile + kk * lanes);
          }
          std::fill(tile + kk * lanes + valid, tile + (kk + 1) * lanes, 0.0f);
        }
      }
      // One depth x 16 tile (8 KiB at KB = 128) stays in L1 while every row pair of the block streams past
      // it.
      for (std::size_t j = 0; j < width; j += lanes) {
        const float* tile = panel.data() + j * depth;
        std::size_t i = 0;
        for (; i + 2 <= rows; i += 2) {
          const float* a0 = ab + (m0 + i) * g.k + k0;
          float* c0 = acc.data() + i * width + j;
          micro_2x16(a0, a0 + g.k, tile, depth, c0, c0 + width);
        }
        if (i < rows) micro_1x16(ab + (m0 + i) * g.k + k0, tile, depth, acc.data() + i * width + j);
      }
    }
    for (std::size_t i = 0; i < rows; ++i) {
      const float* src = acc.data() + i * width;
      std::copy(src, src + cols, cb + (m0 + i) * g.n + n0);
    }
  }
}

std::size_t block_size(const config& values, const char* name, std::int64_t fallback) {
  const auto found = values.find(name);
  const std::int64_t v = found == values.end() ? fallback : found->second;
  if (v <= 0) KBENCH_THROW("bmm/cpu: {} must be positive, got {}", name, v);
  return static_cast<std::size_t>(v);
}

}  // namespace

launcher bind_bmm_cpu(const kernel_args& args) {
  auto device = std::dynamic_pointer_cast<cpu::cpu_device>(args.device);
  if (!device) {
    KBENCH_THROW("bmm/cpu needs a cpu device, got {}",
                 args.device ? std::string(to_string(args.device->info().backend)) : std::string("none"));
  }
  const bmm_dims d = parse_bmm_shape(args.shape, "bmm/cpu");
  if (args.inputs.size() != 2 || !args.inputs[0] || !args.inputs[1]) {
    KBENCH_THROW("bmm/cpu takes 2 inputs (A, B), got {}", args.inputs.size());
  }
  blocking g{static_cast<std::size_t>(d.batch), static_cast<std::size_t>(d.m),
             static_cast<std::size_t>(d.n),     static_cast<std::size_t>(d.k),
             block_size(args.config, "MB", 64), block_size(args.config, "NB", 256),
             block_size(args.config, "KB", 128)};
  if (g.nb % lanes != 0) KBENCH_THROW("bmm/cpu: NB must be a multiple of {}, got {}", lanes, g.nb);
  if (args.inputs[0]->size_bytes() < g.batch * g.m * g.k * sizeof(float) ||
      args.inputs[1]->size_bytes() < g.batch * g.k * g.n * sizeof(float)) {
    KBENCH_THROW("bmm/cpu: inputs too small for shape {}", to_string(args.shape));
  }

  buffer_ptr lhs = args.inputs[0];
  buffer_ptr rhs = args.inputs[1];
  buffer_ptr output = device->allocate(g.batch * g.m * g.n * sizeof(float));
  const std::size_t row_blocks = (g.m + g.mb - 1) / g.mb;
  return [device, lhs, rhs, output, g, row_blocks]() {
    const float* a = cpu::float_data(lhs);
    const float* b = cpu::float_data(rhs);
    float* c = cpu::float_data(output);
    event_ptr done = device->launch([=](const cpu::parallel_context& ctx) {
      ctx.parallel_for(g.batch * row_blocks, 1, [=](std::size_t begin, std::size_t end) {
        // Scratch per chunk (a chunk is a worker's share of the tasks), not per task.
        std::vector<float> panel(g.kb * g.nb);
        std::vector<float> acc(g.mb * g.nb);
        for (std::size_t t = begin; t < end; ++t) {
          block_task(g, a, b, c, t / row_blocks, t % row_blocks * g.mb, panel, acc);
        }
      });
    });
    return call_result{{done}, {output}};
  };
}

}  // namespace kbench::kernels
