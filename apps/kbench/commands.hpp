#pragma once
// The kbench subcommands. Each returns the process exit status: 0 success, 1 a measured failure
// (wrong result, build error, invalid timing), 2 bad input (usage_error is thrown and mapped to 2 by main).

#include <kbench/fault_injection.hpp>
#include <kbench/measure.hpp>

#include "tuning_flags.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace kbench::cli {

int list_kernels();
int list_devices();

struct measure_command {
  std::string kernel;                 // empty: the --spec file's kernel
  std::vector<std::string> specs;     // spec files to load
  std::string shape;                  // one of the kernel's shapes
  int shape_index = -1;               // alternative to shape
  std::vector<std::string> backends;  // empty = all the kernel has
  std::uint64_t seed = 0;
  measure_options timing;
  std::string fault = "none";
  std::string json_path;  // empty = no JSON
  std::string config;     // JSON object overriding the default config (empty: default)
};
int measure(const measure_command& command);

struct run_command {
  std::vector<std::string> kernels;  // empty = all (with specs: the spec kernels, see builtin)
  std::vector<std::string> specs;    // spec files whose kernels to run
  bool builtin = false;              // with specs: the built-in kernels too
  std::string backend = "auto";
  std::vector<std::string> impls;  // kbench, torch (empty = both)
  int num_shapes = -1;             // -1 = all; 0 or less is refused
  int shape_index = -1;            // -1 = all
  std::string shape;               // empty = all; else only this shape of each kernel that has it
  std::uint64_t seed = 0;
  std::string atol, rtol;  // empty = the kernel's tolerance; validated as numbers
  double min_effect =
      default_timing_budget.min_effect;  // [fraction] the smallest speedup called faster/slower
  double require_quiet_s = 0;  // [s] wait this long for a quiet machine per shape, else fail it; 0: mark only
  std::string effort = "none";
  tuning_flags tuning;
  std::string output;  // JSON file to append v3 records to
  std::string db;      // history database URL to store the records in (empty: none)
  std::string commit;  // commit recorded with them in the history (default: $GITHUB_SHA)
  double timeout_per_kernel_s = default_timing_budget.timeout_per_kernel_s;  // [s] per kernel x shape
  double triad_min_mib = 0;  // [MiB per call] shapes moving this much time a triad beside them; 0: rule
  double target_ms = default_timing_budget.target_ms;  // [ms]
  std::string shard = "1/1";                           // run only shard i of N of the plan (suite/shard.hpp)
  bool list = false;                                   // print the planned kernel x shape items and exit
};
int run(const run_command& command);

/// The hidden `kbench worker` that `kbench run` starts per kernel x shape; prints one JSON line.
struct calibrate_command {
  std::string backend = "auto";
  std::size_t elements = std::size_t{1} << 25;
};
int calibrate(const calibrate_command& command);

}  // namespace kbench::cli
