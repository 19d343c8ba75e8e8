#pragma once
// What a kernel's results are checked against: its registered reference (torch's, where kbench is built
// with libtorch), or else its own cpu implementation at its default config.

#include <kbench/host_tensor.hpp>
#include <kbench/suite/kernel.hpp>

#include <string>
#include <vector>

namespace kbench::suite {

/// The expected outputs of `kernel` for shape `s` and `inputs`. Without a registered reference the cpu
/// implementation runs on the cpu backend and its outputs come back flat (one dimension: the accuracy check
/// compares element counts). Throws kbench::error when the kernel has neither.
[[nodiscard]] std::vector<host_tensor> reference_outputs(const kernel_definition& kernel, const shape& s,
                                                         const std::vector<host_tensor>& inputs);

/// What reference_outputs uses for `kernel`, for messages: "torch" or "the cpu implementation".
[[nodiscard]] std::string reference_name(const kernel_definition& kernel);

}  // namespace kbench::suite
