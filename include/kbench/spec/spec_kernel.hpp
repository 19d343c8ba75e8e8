#pragma once
// A spec file's kernel as a suite kernel: kbench measure, tune and run time, check and tune it as they do the
// built-in kernels, in worker processes that load the same file (kernel_definition::definition_file).

#include <kbench/spec/kernel_spec.hpp>
#include <kbench/suite/kernel.hpp>

#include <filesystem>
#include <string>

namespace kbench::spec {

/// The kernel `spec` describes: its shapes, seeded inputs, reference, tolerance, and an implementation per
/// source it names (where this build has that backend), with the spec's tuning space.
[[nodiscard]] suite::kernel_definition make_kernel_definition(const kernel_spec& spec);

/// Reads `file` and registers its kernel; returns the kernel's name. Loading the same file again is a no-op;
/// another file whose kernel has a registered kernel's name throws usage_error.
std::string load_spec_kernel(const std::filesystem::path& file);

}  // namespace kbench::spec
