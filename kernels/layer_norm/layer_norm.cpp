// Registration of layer_norm (two-pass statistics): the softmax row shapes [1024, 256..4096] plus a large one
// for bandwidth.

#include <kbench/build_config.hpp>
#include <kbench/suite/registry.hpp>

#include "layer_norm.hpp"

#include "../common/row_kernel_spaces.hpp"

namespace kbench::kernels {

KBENCH_KERNEL(layer_norm) {
  kernel_builder builder("layer_norm");
  builder.describe("y = layer_norm(x, [N], w, b, eps=1e-5) over rows of x [M, N]; two-pass mean, variance")
      .shapes({{1024, 256}, {1024, 512}, {1024, 1024}, {1024, 2048}, {1024, 4096}, {4096, 4096}})
      .inputs([](const shape& s, std::uint64_t seed) {
        const shape row{s.back()};
        // x has a non-zero mean (1) so that the statistics are not trivially centred; w near 1, b near 0.
        return std::vector{uniform_tensor(s, seed, -3.0f, 5.0f), uniform_tensor(row, seed + 1, 0.5f, 1.5f),
                           uniform_tensor(row, seed + 2, -0.5f, 0.5f)};
      })
      // Outputs are O(1) (|y| < ~3); mean and variance carry a few ulp of relative error after N <= 4096
      // accumulations, and the normalize step a few more, so errors stay around 1e-6: inside atol 1e-5 + rtol
      // 1e-5.
      .tolerance(1e-5, 1e-5)
      .bytes_moved([](const shape& s) {
        return 2.0 * sizeof(float) * static_cast<double>(element_count(s)) +
               2.0 * sizeof(float) * static_cast<double>(s.back());  // x read + y written, w and b read
      })
      .implement(backend_kind::cpu, &bind_layer_norm_cpu, row_spaces::cpu_writing_default())
      .tune(backend_kind::cpu, [](const shape& s) {
        return row_spaces::cpu_writing(element_count(s) / s.back(),
                                       element_count(s) * std::int64_t{sizeof(float)});
      });
#if KBENCH_HAS_OPENCL
  // VEC 4, WG 64: on PoCL (CPU) every level of the work-group tree costs a barrier, so fewer, wider
  // work-items win (docs/code-figures.md); 64 is kept as the default because it is still two full warps /
  // one wavefront on GPUs. The tuner searches WG and VEC per device.

  const config opencl_default{{"VEC", 4}, {"WG", 64}};
  builder.implement(backend_kind::opencl, &bind_layer_norm_opencl, opencl_default)
      .tune(backend_kind::opencl,
            [opencl_default](const shape& s) { return row_spaces::opencl(s.back(), opencl_default); });
#endif
#if KBENCH_HAS_CUDA
  const config cuda_default{{"BLOCK", 256}};
  builder.implement(backend_kind::cuda, &bind_layer_norm_cuda, cuda_default)
      .tune(backend_kind::cuda, [cuda_default](const shape&) { return row_spaces::cuda(cuda_default); });
#endif
  return builder;
}

}  // namespace kbench::kernels
