#pragma once
// The argument checks shared by the device-side row kernels (opencl_rows.hpp, cuda_rows.hpp): a shape of at
// least two dimensions whose last is the row, x holding every row, the further inputs one row each. Not a
// kernel folder: it has no CMakeLists.txt; kernels include it by relative path.

#include <kbench/error.hpp>
#include <kbench/suite/kernel.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace kbench::kernels {

/// Which row kernel and how it is called: entry(x, per-row inputs..., y, cols).
struct row_kernel {
  std::string_view name;         // the kernel's name, for messages (e.g. "welford")
  const char* source = nullptr;  // the embedded .cl or .cu source
  const char* entry = nullptr;   // the kernel function in it
  std::size_t row_inputs = 0;    // inputs after x that hold one row of cols floats each (e.g. w and b)
};

struct row_geometry {
  std::int64_t rows = 0;  // every dimension but the last, flattened
  std::int64_t cols = 0;  // the last dimension [floats per row]
  std::size_t bytes = 0;  // x and y [bytes]
};

/// Checks args.shape = [..., N] and the inputs (x, then `row_inputs` rows of N floats); `where` names the
/// kernel and backend in messages (e.g. "welford/opencl").
[[nodiscard]] inline row_geometry check_row_arguments(const kernel_args& args, std::string_view where,
                                                      std::size_t row_inputs) {
  if (args.shape.size() < 2 ||
      std::any_of(args.shape.begin(), args.shape.end(), [](auto d) { return d <= 0; })) {
    KBENCH_THROW("{}: shape must have at least two dimensions, all > 0, got {}", where,
                 to_string(args.shape));
  }
  const std::size_t input_count = 1 + row_inputs;
  if (args.inputs.size() != input_count) {
    KBENCH_THROW("{} takes {} inputs, got {}", where, input_count, args.inputs.size());
  }
  row_geometry g;
  g.cols = args.shape.back();
  g.rows = element_count(args.shape) / g.cols;
  g.bytes = static_cast<std::size_t>(g.rows * g.cols) * sizeof(float);
  for (std::size_t i = 0; i < input_count; ++i) {
    const std::size_t needed = i == 0 ? g.bytes : static_cast<std::size_t>(g.cols) * sizeof(float);
    if (!args.inputs[i] || args.inputs[i]->size_bytes() < needed) {
      KBENCH_THROW("{}: input {} holds {} bytes, shape {} needs {}", where, i,
                   args.inputs[i] ? args.inputs[i]->size_bytes() : 0, to_string(args.shape), needed);
    }
  }
  return g;
}

}  // namespace kbench::kernels
