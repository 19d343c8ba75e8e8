// Registration of bmm (batched matmul) on shapes [B, M, N, K]; no separate large shape: it is compute bound.

#include <kbench/build_config.hpp>
#include <kbench/error.hpp>
#include <kbench/registry.hpp>

#include "bmm.hpp"

namespace kbench::kernels {

bmm_dims parse_bmm_shape(const shape& s, const char* who) {
  if (s.size() != 4 || s[0] <= 0 || s[1] <= 0 || s[2] <= 0 || s[3] <= 0) {
    KBENCH_THROW("{}: shape must be [B, M, N, K] with every dim > 0, got {}", who, to_string(s));
  }
  return {s[0], s[1], s[2], s[3]};
}

KBENCH_KERNEL(bmm) {
  kernel_builder builder("bmm");
  builder.describe("C[b] = A[b] @ B[b]; shape [B, M, N, K]: A [B, M, K], B [B, K, N], C [B, M, N]")
      .shapes({{8, 256, 256, 256}, {8, 512, 512, 512}, {8, 1024, 1024, 1024}})
      .inputs([](const shape& s, std::uint64_t seed) {
        const bmm_dims d = parse_bmm_shape(s, "bmm inputs");
        return std::vector{uniform_tensor({d.batch, d.m, d.k}, seed, -1.0f, 1.0f),
                           uniform_tensor({d.batch, d.k, d.n}, seed + 1, -1.0f, 1.0f)};
      })
      .reference(&bmm_reference)
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
      .implement(backend_kind::torch, &bind_bmm_torch, {}, "at::bmm_out into a preallocated output")
      .implement(backend_kind::cpu, &bind_bmm_cpu, {{"KB", 128}, {"MB", 64}, {"NB", 256}});
#if KBENCH_HAS_OPENCL
  builder.implement(backend_kind::opencl, &bind_bmm_opencl, {{"TILE", 16}});
#endif
#if KBENCH_HAS_CUDA
  builder.implement(backend_kind::cuda, &bind_bmm_cuda, {{"TILE", 16}});
#endif
  return builder;
}

}  // namespace kbench::kernels
