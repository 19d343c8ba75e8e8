// Registration of the sum kernel (row reduction): the suite's row shapes [1024, N] plus a large one (16M
// elements) for bandwidth.

#include <kbench/build_config.hpp>
#include <kbench/error.hpp>
#include <kbench/suite/registry.hpp>

#include "sum.hpp"

#include "../common/row_kernel_spaces.hpp"

namespace kbench::kernels {

KBENCH_KERNEL(sum) {
  kernel_builder builder("sum");
  builder.describe("out[M] = sum of x[M,N] over N (row reduction)")
      .shapes({{1024, 256}, {1024, 512}, {1024, 1024}, {1024, 2048}, {1024, 4096}, {4096, 4096}})
      .inputs([](const shape& s, std::uint64_t seed) {
        if (s.size() != 2) KBENCH_THROW("sum: shape {} is not [M, N]", to_string(s));
        return std::vector{uniform_tensor(s, seed, -1.0f, 1.0f)};
      })
      // The reference is the correctly rounded sum (float64 accumulation). A float32 sum's error scales with
      // the partial sums it goes through (~sqrt(N / 3) for values uniform in [-1, 1]), not with the result,
      // which can be near 0: hence an absolute tolerance. Measured max abs errors at N = 4096 (seed 0;
      // [1024,4096] and [4096,4096]): torch baseline 2.3e-5, opencl (strided + tree) 1.5e-5, cpu (float
      // blocks, double total) 1.5e-5 (one ulp of the largest sums, |out| ~ 150); at N = 256 all stay below
      // 4e-6. atol 1e-4 leaves a 4x margin for N up to 4096 (larger N needs more); rtol 1e-5 covers the
      // ~1-ulp rounding of large sums.
      .tolerance(1e-4, 1e-5)
      .bytes_moved([](const shape& s) {
        return sizeof(float) * (static_cast<double>(element_count(s)) + static_cast<double>(s.at(0)));
      })
      .implement(backend_kind::cpu, &bind_sum_cpu, row_spaces::cpu_default())
      .tune(backend_kind::cpu, [](const shape& s) { return row_spaces::cpu(element_count(s) / s.back()); });
#if KBENCH_HAS_OPENCL
  const config opencl_default{{"VEC", 4}, {"WG", 64}};
  builder.implement(backend_kind::opencl, &bind_sum_opencl, opencl_default)
      .tune(backend_kind::opencl,
            [opencl_default](const shape& s) { return row_spaces::opencl(s.back(), opencl_default); });
#endif
#if KBENCH_HAS_CUDA
  const config cuda_default{{"BLOCK", 256}};
  builder.implement(backend_kind::cuda, &bind_sum_cuda, cuda_default)
      .tune(backend_kind::cuda, [cuda_default](const shape&) { return row_spaces::cuda(cuda_default); });
#endif
  return builder;
}

}  // namespace kbench::kernels
