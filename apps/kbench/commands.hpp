#pragma once
// The kbench subcommands. Each returns the process exit status: 0 success, 1 a measured failure
// (wrong result, build error, invalid timing), 2 bad input (usage_error is thrown and mapped to 2 by main).

#include <kbench/fault_injection.hpp>
#include <kbench/measure.hpp>
#include <kbench/suite/suite_run.hpp>

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
  suite::suite_run_request request;  // backend, implementations, seed, effort, timing, tolerances' numbers
  std::vector<std::string> kernels;  // empty = all (with specs: the spec kernels, see builtin)
  std::vector<std::string> specs;    // spec files whose kernels to run
  bool builtin = false;              // with specs: the built-in kernels too
  int num_shapes = -1;               // -1 = all; 0 or less is refused
  int shape_index = -1;              // -1 = all
  std::string shape;                 // empty = all; else only this shape of each kernel that has it
  std::string atol, rtol;            // empty = the kernel's tolerance; validated as numbers
  tuning_flags tuning;
  std::string output;         // JSON file to append v3 records to
  std::string db;             // history database URL to store the records in (empty: none)
  std::string commit;         // commit recorded with them in the history (default: $GITHUB_SHA)
  std::string shard = "1/1";  // run only shard i of N of the plan (suite/shard.hpp)
  bool list = false;          // print the planned kernel x shape items and exit
};
int run(const run_command& command);

/// The hidden `kbench worker` that `kbench run` starts per kernel x shape; prints one JSON line.
struct calibrate_command {
  std::string backend = "auto";
  std::size_t elements = std::size_t{1} << 25;
};
int calibrate(const calibrate_command& command);

}  // namespace kbench::cli
