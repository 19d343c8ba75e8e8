// Registration of bmm (batched matmul) on shapes [B, M, N, K]; no separate large shape: it is compute bound.

#include <kbench/build_config.hpp>
#include <kbench/error.hpp>
#include <kbench/suite/registry.hpp>

#include "bmm.hpp"

#include "../common/cpu_rows_simd.hpp"

namespace kbench::kernels {

bmm_dims parse_bmm_shape(const shape& s, const char* who) {
  if (s.size() != 4 || s[0] <= 0 || s[1] <= 0 || s[2] <= 0 || s[3] <= 0) {
    KBENCH_THROW("{}: shape must be [B, M, N, K] with every dim > 0, got {}", who, to_string(s));
  }
  return {s[0], s[1], s[2], s[3]};
}

namespace {

// cpu: ISA (vector width W) x MR (rows of the register tile; 2W columns) x MB, NB, KB (block sizes [rows,
// columns, depth]; see cpu.cpp). SSE2 only on cpus without AVX2, where it is ~4x slower; MR 6 below AVX-512
// (2 * 6 accumulators + 3 of the 16 registers), 8 or 12 with it (32 registers; 6 leaves half of them idle).
// 54 configs on an AVX-512 cpu, 18 on an AVX2 one. cpu.cpp also runs MR 4 (and 6 on AVX-512).
config bmm_cpu_default() {
  const std::int64_t isa = simd::best_isa();
  return {{"ISA", isa},
          {"KB", 256},
          {"MB", 96},
          {"MR", isa == static_cast<std::int64_t>(simd::isa::avx512) ? 12 : 6},
          {"NB", 256}};
}

tune::space bmm_cpu_space() {
  tune::space s;
  simd::add_isa(s);
  s.add(tune::parameter::integers("MR", {6, 8, 12}))
      .add(tune::parameter::integers("MB", {48, 96, 192}))
      .add(tune::parameter::integers("NB", {256, 512}))
      .add(tune::parameter::integers("KB", {128, 256, 512}));
  s.add_constraint("MR 6 below AVX-512, 8 or 12 with it", [](const config& c, const device_info&) {
    return (c.at("ISA") == static_cast<std::int64_t>(simd::isa::avx512)) == (c.at("MR") >= 8);
  });
  s.add_constraint("sse2 only where avx2 is missing", [](const config& c, const device_info&) {
    return c.at("ISA") != static_cast<std::int64_t>(simd::isa::sse2) || !simd::supported(simd::isa::avx2);
  });
  s.set_default(bmm_cpu_default());
  return s;
}

}  // namespace

KBENCH_KERNEL(bmm) {
  kernel_builder builder("bmm");
  builder.describe("C[b] = A[b] @ B[b]; shape [B, M, N, K]: A [B, M, K], B [B, K, N], C [B, M, N]")
      .shapes({{8, 256, 256, 256}, {8, 512, 512, 512}, {8, 1024, 1024, 1024}})
      .inputs([](const shape& s, std::uint64_t seed) {
        const bmm_dims d = parse_bmm_shape(s, "bmm inputs");
        return std::vector{uniform_tensor({d.batch, d.m, d.k}, seed, -1.0f, 1.0f),
                           uniform_tensor({d.batch, d.k, d.n}, seed + 1, -1.0f, 1.0f)};
      })
      // Each output is a K-term dot product of values in [-1, 1]: |C| ~ sqrt(K / 9), about 10 at K = 1024.
      // float32 sums in different orders (blocked here, BLAS in torch) differ by ~sqrt(K) * 2^-24 * sum |a
      // b|; measured max abs error against torch on the cpu backend: 1.7e-5 at K = 256, 4.6e-5 at K =
      // 512, 1.0e-4 at K = 1024 (opencl about half). atol 1e-3 keeps a 10x margin at K = 1024, ~1e-4 of the
      // typical |C|; rtol 1e-4 covers the rare outputs of |C| > 10. Relative error alone is meaningless here:
      // outputs near 0 are common.
      .tolerance(1e-3, 1e-4)
      .bytes_moved([](const shape& s) {
        const bmm_dims d = parse_bmm_shape(s, "bmm bytes_moved");
        return sizeof(float) *
               static_cast<double>(d.batch * d.m * d.k + d.batch * d.k * d.n + d.batch * d.m * d.n);
      })
      // A multiply and an add per term of each dot product: 43-171 flop per byte moved on the suite's
      // shapes, so they are judged by GFLOP/s (suite::compute_bound_flops_per_byte).
      .flops([](const shape& s) {
        const bmm_dims d = parse_bmm_shape(s, "bmm flops");
        return 2.0 * static_cast<double>(d.batch) * static_cast<double>(d.m) * static_cast<double>(d.n) *
               static_cast<double>(d.k);
      })
      .implement(backend_kind::cpu, &bind_bmm_cpu, bmm_cpu_default())
      .tune(backend_kind::cpu, [](const shape&) { return bmm_cpu_space(); });
#if KBENCH_HAS_OPENCL
  const config opencl_default{{"TILE", 16}, {"WPT", 1}};
  builder.implement(backend_kind::opencl, &bind_bmm_opencl, opencl_default)
      .tune(backend_kind::opencl, [opencl_default](const shape&) {
        tune::space s;
        s.add(tune::parameter::power_of_two("TILE", 4, 32).block_size())
            .add(tune::parameter::power_of_two("WPT", 1, 8));
        s.add_constraint("WPT <= TILE",
                         [](const config& c, const device_info&) { return c.at("WPT") <= c.at("TILE"); });
        s.add_constraint(
            "TILE * TILE / WPT work-items <= device maximum", [](const config& c, const device_info& d) {
              return d.max_work_group_size == 0 || c.at("TILE") * c.at("TILE") / c.at("WPT") <=
                                                       static_cast<std::int64_t>(d.max_work_group_size);
            });
        s.set_default(opencl_default);
        return s;
      });
#endif
#if KBENCH_HAS_CUDA
  const config cuda_default{{"TILE", 16}};
  builder.implement(backend_kind::cuda, &bind_bmm_cuda, cuda_default)
      .tune(backend_kind::cuda, [cuda_default](const shape&) {
        tune::space s;
        s.add(tune::parameter::power_of_two("TILE", 8, 32).block_size());
        s.add_constraint("TILE * TILE threads <= device maximum", [](const config& c, const device_info& d) {
          return d.max_work_group_size == 0 ||
                 c.at("TILE") * c.at("TILE") <= static_cast<std::int64_t>(d.max_work_group_size);
        });
        s.set_default(cuda_default);
        return s;
      });
#endif
  return builder;
}

}  // namespace kbench::kernels
