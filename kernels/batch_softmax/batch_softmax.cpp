// Registration of batch_softmax: batches of square-ish score matrices [B, M, N], plus a large one (16M
// elements).

#include <kbench/build_config.hpp>
#include <kbench/registry.hpp>

#include "batch_softmax.hpp"

namespace kbench::kernels {

KBENCH_KERNEL(batch_softmax) {
  kernel_builder builder("batch_softmax");
  builder
      .describe("y = softmax(x, dim=-1) over x [B, M, N]; two passes per row: online max+sum, then normalize")
      .shapes({{4, 256, 256}, {4, 512, 512}, {8, 512, 1024}, {8, 1024, 1024}, {16, 1024, 1024}})
      .inputs([](const shape& s, std::uint64_t seed) {
        return std::vector{uniform_tensor(s, seed, -8.0f, 8.0f)};
      })
      .reference(&batch_softmax_reference)
      // Every output is a product of a few correctly rounded float32 operations (exp within ~1.5 ulp, a row
      // sum of up to 4096 positive terms, one multiply): relative errors stay near 1e-6, well inside rtol;
      // atol only matters for outputs below ~1e-5, where it is far above the absolute error.
      .tolerance(1e-5, 1e-5)
      .bytes_moved([](const shape& s) { return 2.0 * sizeof(float) * static_cast<double>(element_count(s)); })
      .implement(backend_kind::torch, &bind_batch_softmax_torch, {},
                 "at::_softmax_out into a preallocated output")
      .implement(backend_kind::cpu, &bind_batch_softmax_cpu, {{"GRAIN", 8}});
#if KBENCH_HAS_OPENCL
  // WG 64: on PoCL (CPU) every merge level of the work-group tree costs a barrier and two exps, so at N = 256
  // WG = 256 ran ~2x slower than 64 (25 vs 11 ms at [1024,256]) while large rows did not care; 64 is still
  // two full warps / one wavefront on GPUs. The tuner searches WG per device.
  builder.implement(backend_kind::opencl, &bind_batch_softmax_opencl, {{"WG", 64}});
#endif
#if KBENCH_HAS_CUDA
  builder.implement(backend_kind::cuda, &bind_batch_softmax_cuda, {{"BLOCK", 256}});
#endif
  return builder;
}

}  // namespace kbench::kernels
