// bmm on the opencl backend: bmm.cl built with the config as -D defines, one TILE x (TILE / WPT) work-group
// per TILE x TILE tile of C.

#include <kbench/build_config.hpp>

#if KBENCH_HAS_OPENCL

#include <kbench/backends/opencl.hpp>
#include <kbench/error.hpp>

#include "../common/binding_checks.hpp"
#include "bmm.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>

extern const char* const kbench_bmm_opencl_source;  // bmm.cl, embedded by kbench_add_kernel

namespace kbench::kernels {

launcher bind_bmm_opencl(const kernel_args& args) {
  auto device = device_as<opencl::opencl_device>(args, "bmm/opencl", "an opencl device");
  const bmm_dims d = parse_bmm_shape(args.shape, "bmm/opencl");
  if (args.inputs.size() != 2 || !args.inputs[0] || !args.inputs[1]) {
    KBENCH_THROW("bmm/opencl takes 2 inputs (A, B), got {}", args.inputs.size());
  }
  constexpr std::int64_t int_max = std::numeric_limits<std::int32_t>::max();
  if (d.m > int_max || d.n > int_max || d.k > int_max) {
    KBENCH_THROW("bmm/opencl: M, N and K must fit in a 32-bit int, shape {}", to_string(args.shape));
  }
  if (args.inputs[0]->size_bytes() < static_cast<std::size_t>(d.batch * d.m * d.k) * sizeof(float) ||
      args.inputs[1]->size_bytes() < static_cast<std::size_t>(d.batch * d.k * d.n) * sizeof(float)) {
    KBENCH_THROW("bmm/opencl: inputs too small for shape {}", to_string(args.shape));
  }

  // Defaults fill in a missing TILE or WPT, so that the build and the launch geometry agree.
  config defines = args.config;
  const std::int64_t tile = defines.try_emplace("TILE", 16).first->second;  // [elements per tile edge]
  const std::int64_t wpt = defines.try_emplace("WPT", 1).first->second;     // [rows of C per work-item]
  if (tile <= 0 || wpt <= 0 || tile % wpt != 0) {
    KBENCH_THROW("bmm/opencl: TILE={} must be positive and a multiple of WPT={}", tile, wpt);
  }
  const std::size_t max_wg = device->info().max_work_group_size;
  if (max_wg != 0 && static_cast<std::size_t>(tile * (tile / wpt)) > max_wg) {
    KBENCH_THROW("bmm/opencl: TILE={}, WPT={} needs TILE * TILE / WPT work-items per group, at most {} here",
                 tile, wpt, max_wg);
  }

  opencl::opencl_kernel kernel = device->build_program(kbench_bmm_opencl_source, defines).kernel("bmm");
  buffer_ptr output = output_buffer(args, 0, static_cast<std::size_t>(d.batch * d.m * d.n) * sizeof(float));
  kernel.set_arg(0, args.inputs[0]);
  kernel.set_arg(1, args.inputs[1]);
  kernel.set_arg(2, output);
  kernel.set_arg_i32(3, static_cast<std::int32_t>(d.m));
  kernel.set_arg_i32(4, static_cast<std::int32_t>(d.n));
  kernel.set_arg_i32(5, static_cast<std::int32_t>(d.k));

  // dim 0 = columns (rounded up to whole tiles), dim 1 = rows / WPT (whole tiles of TILE / WPT), dim 2 =
  // batch.
  const auto t = static_cast<std::size_t>(tile);
  const auto rts = static_cast<std::size_t>(tile / wpt);  // work-items along the rows of a tile
  const std::array<std::size_t, 3> global{(static_cast<std::size_t>(d.n) + t - 1) / t * t,
                                          (static_cast<std::size_t>(d.m) + t - 1) / t * rts,
                                          static_cast<std::size_t>(d.batch)};
  const std::array<std::size_t, 3> local{t, rts, 1};
  return [kernel, output, global, local]() mutable {
    event_ptr done = kernel.launch(global, local);
    return call_result{{std::move(done)}, {output}};
  };
}

}  // namespace kbench::kernels

#endif  // KBENCH_HAS_OPENCL
