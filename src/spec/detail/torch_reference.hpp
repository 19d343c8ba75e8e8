#pragma once
// A spec's [reference] torch: a TorchScript function that computes the expected outputs. The spec layer has
// no libtorch; the part that compiles TorchScript (src/spec/torch/, linked into the kbench program of a build
// with libtorch) registers its compiler here when the program starts.

#include <kbench/host_tensor.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace kbench::spec::detail {

/// The expected outputs (flat, one per out argument in order) from the inputs (flat, in order) and the
/// shape's extents (in the order of the spec's dims).
using torch_reference = std::function<std::vector<host_tensor>(const std::vector<host_tensor>& inputs,
                                                               const kbench::shape& dims)>;

/// Compiles the TorchScript `script`, which must define `reference`; `origin` ("FILE:LINE") names it in
/// messages. Throws usage_error with the compiler's message.
using torch_reference_compiler =
    std::function<torch_reference(const std::string& script, const std::string& origin)>;

void set_torch_reference_compiler(torch_reference_compiler compiler);
/// The registered compiler; empty in a program without libtorch.
[[nodiscard]] const torch_reference_compiler& registered_torch_reference_compiler();

}  // namespace kbench::spec::detail
