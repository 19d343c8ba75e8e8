#pragma once
// `--spec FILE`: kernels described in files (spec/spec_kernel.hpp), loaded before a command looks kernels up.

#include <string>
#include <vector>

namespace kbench::cli {

/// Loads each spec file and registers its kernel; returns the kernels' names in the files' order. Throws
/// usage_error for a bad file, or when this build has no spec support.
std::vector<std::string> load_spec_files(const std::vector<std::string>& files);

/// The kernel a command works on: `kernel` when given, else the one kernel of `spec_kernels`; throws
/// usage_error when neither names one kernel.
std::string chosen_kernel(const std::string& kernel, const std::vector<std::string>& spec_kernels);

/// Loads one spec file for a worker process (suite::worker_main).
void load_spec_file_for_worker(const std::string& file);

}  // namespace kbench::cli
