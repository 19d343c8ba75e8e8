// Registration of the geglu kernel: the softmax-like row shapes [1024, N] of the suite plus a large one (16M
// output elements) for bandwidth. Shapes are output shapes [M, N]; the input is [M, 2N].

#include <kbench/build_config.hpp>
#include <kbench/error.hpp>
#include <kbench/suite/registry.hpp>

#include "../common/elementwise_spaces.hpp"
#include "geglu.hpp"

namespace kbench::kernels {

KBENCH_KERNEL(geglu) {
  // cpu: ISA = vector instructions; ROWS = rows per task of the parallel loop, 4 to 1024; STREAM =
  // non-temporal stores. 16 rows per task: 4K to 64K outputs on the suite's shapes, 64 tasks or more.
  const config cpu_default = spaces::cpu_default("ROWS", 16);
  kernel_builder builder("geglu");
  builder.describe("out[M,N] = a * gelu(b) (exact erf gelu), x[M,2N] = [a | b]")
      .shapes({{1024, 256}, {1024, 512}, {1024, 1024}, {1024, 2048}, {1024, 4096}, {4096, 4096}})
      .inputs([](const shape& s, std::uint64_t seed) {
        if (s.size() != 2) KBENCH_THROW("geglu: shape {} is not [M, N]", to_string(s));
        // [-4, 4) covers gelu's curved part and both tails (gelu(-4) ~ -1e-4, gelu(4) ~ 4).
        return std::vector{uniform_tensor({s[0], 2 * s[1]}, seed, -4.0f, 4.0f)};
      })
      // Measured max errors against torch over all six shapes (seed 0): opencl and the torch baseline 0
      // (PoCL's erf gives torch's bits here); cpu 3.8e-6 abs and 5.6e-3 rel (sse2 and avx2), the latter in
      // gelu's negative tail, where both compute 1 + erf(x), which cancels (erf ~ -1), from different erf
      // approximations (cpu: a rational function, |error| <= 3.9e-7; torch: A&S 7.1.26, <= 1.5e-7). 1e-5
      // absolute + 1e-5 relative leaves a 2.6x margin on the absolute error and still fails the tanh
      // approximation of gelu (off by up to 4.7e-4 * |a|).
      .tolerance(1e-5, 1e-5)
      .bytes_moved([](const shape& s) { return 3.0 * sizeof(float) * static_cast<double>(element_count(s)); })
      .implement(backend_kind::cpu, &bind_geglu_cpu, cpu_default)
      .tune(backend_kind::cpu, [cpu_default](const shape& s) {
        return spaces::cpu_tasks("ROWS", s.at(0), 4, 1024, element_count(s) * 4, cpu_default);
      });
#if KBENCH_HAS_OPENCL
  // 16-wide vectors: PoCL then runs erf 16 lanes wide (5x faster than 4-wide on [1024, 1024] here).
  const config opencl_default{{"VEC", 16}, {"WG", 16}};
  builder.implement(backend_kind::opencl, &bind_geglu_opencl, opencl_default)
      .tune(backend_kind::opencl, [opencl_default](const shape& s) {
        return spaces::opencl_vectors(s.at(1), {1, 2, 4, 8, 16}, opencl_default);
      });
#endif
#if KBENCH_HAS_CUDA
  const config cuda_default{{"BLOCK", 256}, {"VEC", 4}};
  builder.implement(backend_kind::cuda, &bind_geglu_cuda, cuda_default)
      .tune(backend_kind::cuda, [cuda_default](const shape&) { return spaces::cuda_blocks(cuda_default); });
#endif
  return builder;
}

}  // namespace kbench::kernels
