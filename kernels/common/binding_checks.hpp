#pragma once
// The checks every device binding of a kernel makes: that it was given the backend's device, and inputs of
// the right count and size. Not a kernel folder: it has no CMakeLists.txt; kernels include it by relative
// path.

#include <kbench/error.hpp>
#include <kbench/suite/kernel.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>

namespace kbench::kernels {

/// args.device as the backend's device type; `where` names the kernel and backend ("add/opencl"), `wanted`
/// the device ("an opencl device"). Throws when it is another backend's.
template <class Device>
[[nodiscard]] std::shared_ptr<Device> device_as(const kernel_args& args, std::string_view where,
                                                std::string_view wanted) {
  auto device = std::dynamic_pointer_cast<Device>(args.device);
  if (!device) {
    KBENCH_THROW("{} needs {}, got {}", where, wanted,
                 args.device ? std::string(to_string(args.device->info().backend)) : std::string("none"));
  }
  return device;
}

/// Throws unless args holds one input per entry of `bytes`, each holding at least that many bytes.
inline void check_inputs(const kernel_args& args, std::string_view where,
                         std::span<const std::size_t> bytes) {
  if (args.inputs.size() != bytes.size()) {
    KBENCH_THROW("{} takes {} input{}, got {}", where, bytes.size(), bytes.size() == 1 ? "" : "s",
                 args.inputs.size());
  }
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    const std::size_t held = args.inputs[i] ? args.inputs[i]->size_bytes() : 0;
    if (held < bytes[i]) {
      KBENCH_THROW("{}: input {} holds {} bytes, shape {} needs {}", where, i, held, to_string(args.shape),
                   bytes[i]);
    }
  }
}

/// args.shape as a non-empty [M, N] (rows, columns); throws otherwise.
[[nodiscard]] inline std::pair<std::int64_t, std::int64_t> matrix_shape(const kernel_args& args,
                                                                        std::string_view where) {
  if (args.shape.size() != 2 || args.shape[0] <= 0 || args.shape[1] <= 0) {
    KBENCH_THROW("{}: shape {} is not a non-empty [M, N]", where, to_string(args.shape));
  }
  return {args.shape[0], args.shape[1]};
}

/// [bytes] of `count` float32 values.
[[nodiscard]] constexpr std::size_t float_bytes(std::int64_t count) {
  return static_cast<std::size_t>(count) * sizeof(float);
}

}  // namespace kbench::kernels
