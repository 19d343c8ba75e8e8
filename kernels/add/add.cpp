// Registration of the add kernel: the TPU suite's square shapes plus a large one (16M elements) for
// bandwidth.

#include <kbench/build_config.hpp>
#include <kbench/registry.hpp>

#include "add.hpp"

namespace kbench::kernels {

KBENCH_KERNEL(add) {
  kernel_builder builder("add");
  builder.describe("z = x + y, elementwise")
      .shapes({{128, 128}, {256, 256}, {512, 512}, {1024, 1024}, {2048, 2048}, {4096, 4096}})
      .inputs([](const shape& s, std::uint64_t seed) {
        return std::vector{uniform_tensor(s, seed, -1.0f, 1.0f), uniform_tensor(s, seed + 1, -1.0f, 1.0f)};
      })
      .reference(&add_reference)
      // A float32 addition is correctly rounded on every backend (IEEE 754), so every result is bit-identical
      // to torch's: the check is exact.
      .tolerance(0.0, 0.0)
      .bytes_moved([](const shape& s) { return 3.0 * sizeof(float) * static_cast<double>(element_count(s)); })
      .implement(backend_kind::torch, &bind_add_torch, {}, "at::add_out into a preallocated output")
      .implement(backend_kind::cpu, &bind_add_cpu, {{"GRAIN", 65536}});
#if KBENCH_HAS_OPENCL
  builder.implement(backend_kind::opencl, &bind_add_opencl, {{"VEC", 4}, {"WG", 256}});
#endif
#if KBENCH_HAS_CUDA
  builder.implement(backend_kind::cuda, &bind_add_cuda, {{"BLOCK", 256}, {"VEC", 4}});
#endif
  return builder;
}

}  // namespace kbench::kernels
