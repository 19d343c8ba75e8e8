// Registration of softmax_two_pass: the TPU suite's row shapes [1024, 256..4096] plus a large one for
// bandwidth.

#include <kbench/build_config.hpp>
#include <kbench/suite/registry.hpp>

#include "softmax_two_pass.hpp"

#include "../common/row_kernel_spaces.hpp"

namespace kbench::kernels {

KBENCH_KERNEL(softmax_two_pass) {
  kernel_builder builder("softmax_two_pass");
  builder.describe("y = softmax(x, dim=-1) over rows of x [M, N]; two passes: online max+sum, then normalize")
      .shapes({{1024, 256}, {1024, 512}, {1024, 1024}, {1024, 2048}, {1024, 4096}, {4096, 4096}})
      .inputs([](const shape& s, std::uint64_t seed) {
        return std::vector{uniform_tensor(s, seed, -8.0f, 8.0f)};
      })
      // Every output is a product of a few correctly rounded float32 operations (exp within ~1.5 ulp, a row
      // sum of up to 4096 positive terms, one multiply): relative errors stay near 1e-6, well inside rtol;
      // atol only matters for outputs below ~1e-5, where it is far above the absolute error.
      .tolerance(1e-5, 1e-5)
      .bytes_moved([](const shape& s) { return 2.0 * sizeof(float) * static_cast<double>(element_count(s)); })
      .implement(backend_kind::cpu, &bind_softmax_two_pass_cpu, row_spaces::cpu_writing_default())
      .tune(backend_kind::cpu, [](const shape& s) {
        return row_spaces::cpu_writing(element_count(s) / s.back(),
                                       element_count(s) * std::int64_t{sizeof(float)});
      });
#if KBENCH_HAS_OPENCL
  // VEC 4, WG 64: on PoCL (CPU) every merge level of the work-group tree costs a barrier, so fewer, wider
  // work-items win (docs/code-figures.md); 64 is kept as the default because it is still two full warps /
  // one wavefront on GPUs. The tuner searches WG and VEC per device.

  const config opencl_default{{"VEC", 4}, {"WG", 64}};
  builder.implement(backend_kind::opencl, &bind_softmax_two_pass_opencl, opencl_default)
      .tune(backend_kind::opencl,
            [opencl_default](const shape& s) { return row_spaces::opencl(s.back(), opencl_default); });
#endif
#if KBENCH_HAS_CUDA
  const config cuda_default{{"BLOCK", 256}};
  builder.implement(backend_kind::cuda, &bind_softmax_two_pass_cuda, cuda_default)
      .tune(backend_kind::cuda, [cuda_default](const shape&) { return row_spaces::cuda(cuda_default); });
#endif
  return builder;
}

}  // namespace kbench::kernels
