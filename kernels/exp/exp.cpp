// Registration of the exp kernel: shapes of the TPU suite plus large ones for bandwidth.

#include <kbench/build_config.hpp>
#include <kbench/registry.hpp>

#include "exp.hpp"

namespace kbench::kernels {

KBENCH_KERNEL(exp) {
  kernel_builder builder("exp");
  builder.describe("y = exp(x), elementwise")
      .shapes({{1024}, {4096}, {16384}, {65536}, {262144}, {1048576}, {16777216}, {104857600}})
      .inputs([](const shape& s, std::uint64_t seed) {
        return std::vector{uniform_tensor(s, seed, -8.0f, 8.0f)};
      })
      .reference(&exp_reference)
      .tolerance(1e-6, 1e-5)
      .bytes_moved([](const shape& s) { return 2.0 * sizeof(float) * static_cast<double>(element_count(s)); })
      .implement(backend_kind::torch, &bind_exp_torch, {}, "at::exp_out into a preallocated output")
      .implement(backend_kind::cpu, &bind_exp_cpu, {{"GRAIN", 65536}});
#if KBENCH_HAS_OPENCL
  builder.implement(backend_kind::opencl, &bind_exp_opencl, {{"VEC", 4}, {"WG", 256}});
#endif
#if KBENCH_HAS_CUDA
  builder.implement(backend_kind::cuda, &bind_exp_cuda, {{"BLOCK", 256}, {"VEC", 4}});
#endif
  return builder;
}

}  // namespace kbench::kernels
