#pragma once
// Reading NumPy's .npy files (format versions 1 to 3, little-endian float32 or float64, C order), for spec
// inputs and expected outputs. The format is a magic string, a header that is a Python dict literal, and the
// raw array: numpy.lib.format documents it, and no C++ reader of it is packaged by Debian.

#include <kbench/host_tensor.hpp>

#include <filesystem>

namespace kbench::spec::detail {

/// The array in `file` as float32 (float64 values are rounded). Throws usage_error naming the file for a
/// missing or malformed file, another dtype, or Fortran order.
[[nodiscard]] host_tensor read_npy(const std::filesystem::path& file);

}  // namespace kbench::spec::detail
