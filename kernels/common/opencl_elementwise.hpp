#pragma once
// The opencl host side shared by the elementwise kernels (add, exp, low_mem_dropout, geglu, swiglu): the
// config as -D defines with WG and VEC filled in and checked, the kernel called as entry(inputs..., y,
// scalars...), one work-item per VEC elements of a row, rounded up to whole work-groups, times the rows.
// Not a kernel folder: it has no CMakeLists.txt; kernels include it by relative path, inside their
// #if KBENCH_HAS_OPENCL.

#include <kbench/backends/opencl.hpp>
#include <kbench/error.hpp>
#include <kbench/suite/kernel.hpp>

#include "binding_checks.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kbench::kernels {

/// Which elementwise kernel, its operands and its launch.
struct opencl_elementwise {
  std::string_view name;                 // the kernel's name, for messages (e.g. "add")
  const char* source = nullptr;          // the embedded .cl source
  const char* entry = nullptr;           // the kernel function in it
  std::vector<std::size_t> input_bytes;  // [bytes] each input must hold, in order
  std::size_t output_bytes = 0;          // [bytes] of the one output
  std::vector<std::int64_t> scalars;     // arguments after the output (long)
  std::int64_t row_elements = 0;         // elements per row: work-items cover VEC each (dimension 0)
  std::int64_t rows = 1;                 // dimension 1 of the launch; 1: a 1-D launch
  std::int64_t default_wg = 256;         // WG where the config has none
  std::int64_t max_vec = 16;             // VEC: a power of two up to this
};

/// "1, 2, 4 or 8": the powers of two up to `largest`, for messages.
[[nodiscard]] inline std::string powers_of_two_up_to(std::int64_t largest) {
  std::string text = "1";
  for (std::int64_t v = 2; v <= largest; v *= 2) text += fmt::format("{}{}", v == largest ? " or " : ", ", v);
  return text;
}

/// Binds `k` with args.config; throws on a wrong device, input or config.
[[nodiscard]] inline launcher bind_elementwise_opencl(const kernel_args& args, const opencl_elementwise& k) {
  const std::string where = fmt::format("{}/opencl", k.name);
  auto device = device_as<opencl::opencl_device>(args, where, "an opencl device");
  if (k.row_elements <= 0 || k.rows <= 0)
    KBENCH_THROW("{}: shape {} has no elements", where, to_string(args.shape));
  check_inputs(args, where, k.input_bytes);

  // Defaults fill in what the config leaves out, so that the build and the launch geometry agree.
  config defines = args.config;
  const std::int64_t wg = defines.try_emplace("WG", k.default_wg).first->second;  // [work-items per group]
  const std::int64_t vec = defines.try_emplace("VEC", 4).first->second;           // [elements per work-item]
  if (vec < 1 || vec > k.max_vec || (vec & (vec - 1)) != 0) {
    KBENCH_THROW("{}: VEC must be {}, got {}", where, powers_of_two_up_to(k.max_vec), vec);
  }
  const std::size_t max_wg = device->info().max_work_group_size;
  if (wg <= 0 || (max_wg != 0 && static_cast<std::size_t>(wg) > max_wg)) {
    KBENCH_THROW("{}: WG={} does not fit the device (1 to {} work-items)", where, wg, max_wg);
  }

  opencl::opencl_kernel kernel = device->build_program(k.source, defines).kernel(k.entry);
  buffer_ptr output = output_buffer(args, 0, k.output_bytes);
  unsigned arg = 0;
  for (const buffer_ptr& input : args.inputs) kernel.set_arg(arg++, input);
  kernel.set_arg(arg++, output);
  for (const std::int64_t scalar : k.scalars) kernel.set_arg_i64(arg++, scalar);

  const auto items = static_cast<std::size_t>((k.row_elements + vec - 1) / vec);
  const auto group = static_cast<std::size_t>(wg);
  const std::size_t width = (items + group - 1) / group * group;
  if (k.rows == 1) {
    const std::array<std::size_t, 1> global{width};
    const std::array<std::size_t, 1> local{group};
    return [kernel, output, global, local]() mutable {
      return call_result{{kernel.launch(global, local)}, {output}};
    };
  }
  const std::array<std::size_t, 2> global{width, static_cast<std::size_t>(k.rows)};
  const std::array<std::size_t, 2> local{group, 1};
  return [kernel, output, global, local]() mutable {
    return call_result{{kernel.launch(global, local)}, {output}};
  };
}

/// Binds a gated linear unit (geglu, swiglu: kernels/common/gated_rows.cl after the kernel's gate) called
/// `name` for out [M, N] from x [M, 2N]: a 2-D launch, vectors of a row x rows.
[[nodiscard]] inline launcher bind_gated_rows_opencl(const kernel_args& args, std::string_view name,
                                                     const char* source) {
  const auto [rows, cols] = matrix_shape(args, fmt::format("{}/opencl", name));  // an input row holds 2N
  return bind_elementwise_opencl(args, {.name = name,
                                        .source = source,
                                        .entry = "gated_rows",
                                        .input_bytes = {float_bytes(2 * rows * cols)},
                                        .output_bytes = float_bytes(rows * cols),
                                        .scalars = {cols},
                                        .row_elements = cols,
                                        .rows = rows,
                                        .default_wg = 64});
}

}  // namespace kbench::kernels
