// Registration of the low_mem_dropout kernel: 1-D shapes from 1K to 1M elements plus a large one (16M) for
// bandwidth. The mask seed is the second input (see low_mem_dropout.hpp).

#include <kbench/build_config.hpp>
#include <kbench/suite/registry.hpp>

#include "../common/elementwise_spaces.hpp"
#include "low_mem_dropout.hpp"

namespace kbench::kernels {

KBENCH_KERNEL(low_mem_dropout) {
  // cpu: ISA = vector instructions; TASK = elements per task of the parallel loop, 4K (32 KiB moved, about a
  // us) to 1M; STREAM = non-temporal stores. 64K elements per task: serial up to 64K, then at least two tasks
  // per worker.
  const config cpu_default = spaces::cpu_default("TASK", 65536);
  kernel_builder builder("low_mem_dropout");
  builder.describe("out = keep ? x / (1 - p) : 0, p = 0.5, keep from a counter-based hash of (seed, index)")
      .shapes({{1024}, {16384}, {262144}, {1048576}, {16777216}})
      .inputs([](const shape& s, std::uint64_t seed) {
        // The mask seed: (seed + 1) mod 2^24, exactly representable in float32.
        host_tensor mask_seed({1});
        mask_seed.values[0] = static_cast<float>((seed + 1) & 0xFFFFFFu);
        return std::vector{uniform_tensor(s, seed, -1.0f, 1.0f), mask_seed};
      })
      // Every backend draws the same mask bit for bit, so a dropped element must be exactly 0 (atol 0); a
      // kept one is x / 0.5, exact too, but rtol 1e-6 allows an OpenCL division that is not correctly rounded
      // (2.5 ulp).
      .tolerance(0.0, 1e-6)
      .bytes_moved([](const shape& s) { return 2.0 * sizeof(float) * static_cast<double>(element_count(s)); })
      .implement(backend_kind::cpu, &bind_low_mem_dropout_cpu, cpu_default)
      .tune(backend_kind::cpu, [cpu_default](const shape& s) {
        return spaces::cpu_tasks("TASK", element_count(s), 4096, 1 << 20, element_count(s) * 4, cpu_default);
      });
#if KBENCH_HAS_OPENCL
  const config opencl_default{{"VEC", 4}, {"WG", 256}};
  builder.implement(backend_kind::opencl, &bind_low_mem_dropout_opencl, opencl_default)
      .tune(backend_kind::opencl, [opencl_default](const shape& s) {
        return spaces::opencl_vectors(element_count(s), {1, 2, 4, 8, 16}, opencl_default);
      });
#endif
#if KBENCH_HAS_CUDA
  const config cuda_default{{"BLOCK", 256}, {"VEC", 4}};
  builder.implement(backend_kind::cuda, &bind_low_mem_dropout_cuda, cuda_default)
      .tune(backend_kind::cuda, [cuda_default](const shape&) { return spaces::cuda_blocks(cuda_default); });
#endif
  return builder;
}

}  // namespace kbench::kernels
