// Registration of the add kernel: the TPU suite's square shapes plus a large one (16M elements) for
// bandwidth.

#include <kbench/build_config.hpp>
#include <kbench/suite/registry.hpp>

#include "../common/elementwise_spaces.hpp"
#include "add.hpp"

namespace kbench::kernels {

KBENCH_KERNEL(add) {
  // cpu: ISA = vector instructions; TASK = elements per task of the parallel loop, 4K (48 KiB moved, about a
  // us) to 1M; STREAM = non-temporal stores. 64K elements per task: serial up to 64K, then at least two tasks
  // per worker.
  const config cpu_default = spaces::cpu_default("TASK", 65536);
  kernel_builder builder("add");
  builder.describe("z = x + y, elementwise")
      .shapes({{128, 128}, {256, 256}, {512, 512}, {1024, 1024}, {2048, 2048}, {4096, 4096}})
      .inputs([](const shape& s, std::uint64_t seed) {
        return std::vector{uniform_tensor(s, seed, -1.0f, 1.0f), uniform_tensor(s, seed + 1, -1.0f, 1.0f)};
      })
      // A float32 addition is correctly rounded on every backend (IEEE 754), so every result is bit-identical
      // to torch's: the check is exact.
      .tolerance(0.0, 0.0)
      .bytes_moved([](const shape& s) { return 3.0 * sizeof(float) * static_cast<double>(element_count(s)); })
      .implement(backend_kind::cpu, &bind_add_cpu, cpu_default)
      .tune(backend_kind::cpu, [cpu_default](const shape& s) {
        return spaces::cpu_tasks("TASK", element_count(s), 4096, 1 << 20, element_count(s) * 4, cpu_default);
      });
#if KBENCH_HAS_OPENCL
  const config opencl_default{{"VEC", 4}, {"WG", 256}};
  builder.implement(backend_kind::opencl, &bind_add_opencl, opencl_default)
      .tune(backend_kind::opencl, [opencl_default](const shape& s) {
        return spaces::opencl_vectors(element_count(s), {1, 2, 4, 8, 16}, opencl_default);
      });
#endif
#if KBENCH_HAS_CUDA
  const config cuda_default{{"BLOCK", 256}, {"VEC", 4}};
  builder.implement(backend_kind::cuda, &bind_add_cuda, cuda_default)
      .tune(backend_kind::cuda, [cuda_default](const shape&) { return spaces::cuda_blocks(cuda_default); });
#endif
  return builder;
}

}  // namespace kbench::kernels
