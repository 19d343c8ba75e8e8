#pragma once
// The kbench subcommands. Each returns the process exit status: 0 success, 1 a measured failure
// (wrong result, build error, invalid timing), 2 bad input (usage_error is thrown and mapped to 2 by main).

#include <kbench/fault_injection.hpp>
#include <kbench/measure.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace kbench::cli {

int list_kernels();
int list_devices();

struct measure_command {
  std::string kernel;
  std::string shape;           // one of the kernel's shapes
  int shape_index = -1;        // alternative to shape
  std::vector<std::string> backends;  // empty = all the kernel has
  std::uint64_t seed = 0;
  measure_options timing;
  std::string fault = "none";
  std::string json_path;       // empty = no JSON
};
int measure(const measure_command& command);

}  // namespace kbench::cli
