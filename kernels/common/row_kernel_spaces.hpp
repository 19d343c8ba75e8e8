#pragma once
// Tuning spaces shared by the row kernels (sum, welford, layer_norm, rms_norm, softmax_two_pass,
// batch_softmax: one row of N floats per work unit) and their defaults. Not a kernel folder: it has no
// CMakeLists.txt; kernels include it by relative path.
//
// cpu (cpu_rows_simd.hpp): ISA = vector width (sse2 / avx2 / avx512, what the host runs), UNROLL = vectors
// per step of the row loops (independent accumulators), GRAIN = rows per task of the dynamically scheduled
// loop; for the kernels that write a row per row (all but sum), STREAM = non-temporal stores of the output
// (cpu_simd.hpp write_vectors). opencl: WG = work-group size (one work-group per row), VEC = floats per
// vector load of a work-item. cuda: BLOCK = threads per block (one block per row).

#include "cpu_simd.hpp"

#include <kbench/build_config.hpp>
#include <kbench/config.hpp>
#include <kbench/device.hpp>
#include <kbench/suite/registry.hpp>
#include <kbench/tune/space.hpp>

#include <cstdint>
#include <string>
#include <utility>

namespace kbench::kernels::row_spaces {

/// The cpu default: the widest ISA the host runs, 4 vectors per step, 16 rows per task
/// (docs/code-figures.md).

inline config cpu_default() {
  return {{"GRAIN", 16}, {"ISA", simd::best_isa()}, {"UNROLL", 4}};
}

/// cpu: ISA x UNROLL (1, 2, 4) x GRAIN (1, 4, ..., 4096 rows per task) over `rows` rows. Every GRAIN >= rows
/// runs serially (one task, no helper woken), so only GRAIN < 2 * rows is kept (plus the default): the
/// largest kept one is the serial option. 54 configs at 1024 rows with AVX-512, 63 from 4096 rows on.
inline tune::space cpu(std::int64_t rows) {
  tune::space s;
  simd::add_isa(s);
  s.add(tune::parameter::integers("UNROLL", {1, 2, 4}))
      .add(tune::parameter::integers("GRAIN", {1, 4, 16, 64, 256, 1024, 4096}));
  const config defaults = cpu_default();
  const std::int64_t default_grain = defaults.at("GRAIN");
  s.add_constraint("GRAIN < 2 * rows (larger ones are all serial) or the default",
                   [rows, default_grain](const config& c, const device_info&) {
                     return c.at("GRAIN") < 2 * rows || c.at("GRAIN") == default_grain;
                   });
  s.set_default(defaults);
  return s;
}

/// The cpu default of the kernels that write an output row per input row: cpu_default() with normal stores.
inline config cpu_writing_default() {
  config c = cpu_default();
  c["STREAM"] = 0;
  return c;
}

/// cpu(rows) and STREAM (simd::add_stream) for a kernel whose output takes `output_bytes`. At [4096,4096] on
/// the 2-core AVX2 development VM STREAM 1 took rms_norm from 8.5-10.0 to 5.8-6.9 ms (same session,
/// interleaved).
inline tune::space cpu_writing(std::int64_t rows, std::int64_t output_bytes) {
  tune::space s = cpu(rows);
  simd::add_stream(s, output_bytes);
  s.set_default(cpu_writing_default());
  return s;
}

/// opencl: WG (power of two from 16 to 1024, at most the device's work-group size) x VEC (1, 2, 4, 8 floats
/// per load). Configs whose work-group covers more than the row (WG * VEC > N rounded up to a power of two)
/// leave work-items without any element; they are dropped, except the default. 28 configs at most.
inline tune::space opencl(std::int64_t cols, config default_config) {
  tune::space s;
  s.add(tune::parameter::power_of_two("WG", 16, 1024).block_size())
      .add(tune::parameter::integers("VEC", {1, 2, 4, 8}));
  s.add_constraint("work-group size <= device maximum", [](const config& c, const device_info& d) {
    return d.max_work_group_size == 0 || c.at("WG") <= static_cast<std::int64_t>(d.max_work_group_size);
  });
  std::int64_t span = 1;  // the row rounded up to a power of two [floats]
  while (span < cols) span *= 2;
  s.add_constraint("WG * VEC <= the row rounded up to a power of two, or the default",
                   [span, default_config](const config& c, const device_info&) {
                     return c.at("WG") * c.at("VEC") <= span || c == default_config;
                   });
  s.set_default(std::move(default_config));
  return s;
}

/// cuda: BLOCK (power of two from 32, one warp, to 1024, at most the device's block size).
inline tune::space cuda(config default_config) {
  tune::space s;
  s.add(tune::parameter::power_of_two("BLOCK", 32, 1024).block_size());
  s.add_constraint("block size <= device maximum", [](const config& c, const device_info& d) {
    return d.max_work_group_size == 0 || c.at("BLOCK") <= static_cast<std::int64_t>(d.max_work_group_size);
  });
  s.set_default(std::move(default_config));
  return s;
}

/// Adds the cpu, opencl and cuda implementations of a row kernel whose output has x's shape (welford,
/// layer_norm, rms_norm, the softmaxes), each with its default config and tuning space; `opencl` and `cuda`
/// are null where the build lacks that backend (KBENCH_IF_OPENCL, KBENCH_IF_CUDA). opencl's default is VEC 4,
/// WG 64: on PoCL (CPU) every level of the work-group tree costs a barrier, so fewer, wider work-items win
/// (docs/code-figures.md), and 64 is still two full warps / one wavefront on GPUs.
inline void implement_rows(kernel_builder& builder, implementation_factory cpu_bind,
                           implementation_factory opencl_bind, implementation_factory cuda_bind) {
  builder.implement(backend_kind::cpu, std::move(cpu_bind), cpu_writing_default())
      .tune(backend_kind::cpu, [](const shape& s) {
        return cpu_writing(element_count(s) / s.back(), element_count(s) * std::int64_t{sizeof(float)});
      });
  if (opencl_bind) {
    const config opencl_default{{"VEC", 4}, {"WG", 64}};
    builder.implement(backend_kind::opencl, std::move(opencl_bind), opencl_default)
        .tune(backend_kind::opencl,
              [opencl_default](const shape& s) { return opencl(s.back(), opencl_default); });
  }
  if (cuda_bind) {
    const config cuda_default{{"BLOCK", 256}};
    builder.implement(backend_kind::cuda, std::move(cuda_bind), cuda_default)
        .tune(backend_kind::cuda, [cuda_default](const shape&) { return cuda(cuda_default); });
  }
}

}  // namespace kbench::kernels::row_spaces

/// A binding of the opencl or cuda backend where the build has it, else nullptr (for implement_rows).
#if KBENCH_HAS_OPENCL
#define KBENCH_IF_OPENCL(bind) (bind)
#else
#define KBENCH_IF_OPENCL(bind) nullptr
#endif
#if KBENCH_HAS_CUDA
#define KBENCH_IF_CUDA(bind) (bind)
#else
#define KBENCH_IF_CUDA(bind) nullptr
#endif
