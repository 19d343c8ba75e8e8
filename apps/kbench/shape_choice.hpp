#pragma once
// Which of a kernel's shapes a command works on: `--shape S` (one of the kernel's shapes, e.g. 1024 or
// [1024,256]) or `--shape-index I`, as `kbench measure` and `kbench tune` take them.

#include <kbench/suite/registry.hpp>

#include <cstddef>
#include <string>

namespace kbench::cli {

/// The index of the kernel's shape `shape_text` (when not empty) or `shape_index` (when >= 0; neither: 0).
/// Throws usage_error (exit status 2) listing the kernel's shapes when the shape is not one of them or the
/// index is out of range.
[[nodiscard]] std::size_t choose_shape_index(const suite::kernel_definition& kernel,
                                             const std::string& shape_text, int shape_index);

}  // namespace kbench::cli
