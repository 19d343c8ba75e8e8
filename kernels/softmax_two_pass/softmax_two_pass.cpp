// Registration of softmax_two_pass: the TPU suite's row shapes [1024, 256..4096] plus a large one for
// bandwidth.

#include <kbench/build_config.hpp>
#include <kbench/registry.hpp>

#include "softmax_two_pass.hpp"

namespace kbench::kernels {

KBENCH_KERNEL(softmax_two_pass) {
  kernel_builder builder("softmax_two_pass");
  builder.describe("y = softmax(x, dim=-1) over rows of x [M, N]; two passes: online max+sum, then normalize")
      .shapes({{1024, 256}, {1024, 512}, {1024, 1024}, {1024, 2048}, {1024, 4096}, {4096, 4096}})
      .inputs([](const shape& s, std::uint64_t seed) {
        return std::vector{uniform_tensor(s, seed, -8.0f, 8.0f)};
      })
      .reference(&softmax_two_pass_reference)
      // Every output is a product of a few correctly rounded float32 operations (exp within ~1.5 ulp, a row
      // sum of up to 4096 positive terms, one multiply): relative errors stay near 1e-6, well inside rtol;
      // atol only matters for outputs below ~1e-5, where it is far above the absolute error.
      .tolerance(1e-5, 1e-5)
      .bytes_moved([](const shape& s) { return 2.0 * sizeof(float) * static_cast<double>(element_count(s)); })
      .implement(backend_kind::torch, &bind_softmax_two_pass_torch, {},
                 "at::_softmax_out into a preallocated output")
      .implement(backend_kind::cpu, &bind_softmax_two_pass_cpu, {{"GRAIN", 8}});
#if KBENCH_HAS_OPENCL
  // WG 64: on PoCL (CPU) every merge level of the work-group tree costs a barrier and two exps, so at N = 256
  // WG = 256 ran ~2x slower than 64 (25 vs 11 ms at [1024,256]) while large rows did not care; 64 is still
  // two full warps / one wavefront on GPUs. The tuner searches WG per device.
  builder.implement(backend_kind::opencl, &bind_softmax_two_pass_opencl, {{"WG", 64}});
#endif
#if KBENCH_HAS_CUDA
  builder.implement(backend_kind::cuda, &bind_softmax_two_pass_cuda, {{"BLOCK", 256}});
#endif
  return builder;
}

}  // namespace kbench::kernels
