// Registration of the exp kernel: shapes of the TPU suite plus large ones for bandwidth.

#include <kbench/build_config.hpp>
#include <kbench/suite/registry.hpp>

#include "../common/elementwise_spaces.hpp"
#include "exp.hpp"

namespace kbench::kernels {

KBENCH_KERNEL(exp) {
  // cpu: ISA = vector instructions; TASK = elements per task of the parallel loop, 4K (16 KiB read, ~1.5 us)
  // to 1M; STREAM = non-temporal stores. 64K elements per task: serial up to 64K, then at least two tasks per
  // worker.
  const config cpu_default = spaces::cpu_default("TASK", 65536);
  kernel_builder builder("exp");
  builder.describe("y = exp(x), elementwise")
      .shapes({{1024}, {4096}, {16384}, {65536}, {262144}, {1048576}, {16777216}, {104857600}})
      .inputs([](const shape& s, std::uint64_t seed) {
        return std::vector{uniform_tensor(s, seed, -8.0f, 8.0f)};
      })
      .tolerance(1e-6, 1e-5)
      .bytes_moved([](const shape& s) { return 2.0 * sizeof(float) * static_cast<double>(element_count(s)); })
      .implement(backend_kind::cpu, &bind_exp_cpu, cpu_default)
      .tune(backend_kind::cpu, [cpu_default](const shape& s) {
        return spaces::cpu_tasks("TASK", element_count(s), 4096, 1 << 20, element_count(s) * 4, cpu_default);
      });
#if KBENCH_HAS_OPENCL
  const config opencl_default{{"VEC", 4}, {"WG", 256}};
  builder.implement(backend_kind::opencl, &bind_exp_opencl, opencl_default)
      .tune(backend_kind::opencl, [opencl_default](const shape& s) {
        return spaces::opencl_vectors(element_count(s), {1, 2, 4, 8}, opencl_default);
      });
#endif
#if KBENCH_HAS_CUDA
  const config cuda_default{{"BLOCK", 256}, {"VEC", 4}};
  builder.implement(backend_kind::cuda, &bind_exp_cuda, cuda_default)
      .tune(backend_kind::cuda, [cuda_default](const shape&) { return spaces::cuda_blocks(cuda_default); });
#endif
  return builder;
}

}  // namespace kbench::kernels
