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
  std::string kernel;
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
  std::vector<std::string> kernels;  // empty = all
  std::string backend = "auto";
  std::vector<std::string> impls;  // kbench, torch (empty = both)
  int num_shapes = -1;             // -1 = all; 0 or less is refused
  int shape_index = -1;            // -1 = all
  std::string shape;               // empty = all; else only this shape of each kernel that has it
  std::uint64_t seed = 0;
  std::string atol, rtol;  // empty = the kernel's tolerance; validated as numbers
  std::string effort = "none";
  tuning_flags tuning;
  std::string output;                 // JSON file to append v3 records to
  std::string db;                     // history database URL to store the records in (empty: none)
  std::string commit;                 // commit recorded with them in the history (default: $GITHUB_SHA)
  double timeout_per_kernel_s = 600;  // [s] per kernel x shape
  double triad_min_mib = 0;   // [MiB per call] shapes moving this much time a triad beside them; 0: rule
  double target_ms = 100;     // [ms]
  std::string shard = "1/1";  // run only shard i of N of the plan (runner/shard.hpp)
  bool list = false;          // print the planned kernel x shape items and exit
};
int run(const run_command& command);

/// The hidden `kbench worker` that `kbench run` starts per kernel x shape; prints one JSON line.
struct worker_command {
  std::string kernel;
  int shape_index = 0;
  std::string backend = "cpu";
  std::uint64_t seed = 0;
  std::string atol, rtol;
  std::vector<std::string> impls;
  double target_ms = 100;
  std::string phase;                 // compile|time|retime: a tuning trial (config_trial.hpp); empty: a shape
  std::vector<std::string> configs;  // JSON objects; a shape takes at most one
  double incumbent_ms = 0;           // [ms] time trial: the second config's (the incumbent's) best time
  double retime_within = 1.5;        // [ratio] time trial: re-time against the incumbent within this
  double give_up_above = 2;          // [ratio] time trial: first calls only, when all are this far behind
  double time_limit_s = 0;           // [s] how long the caller waits; 0: no limit (trial_request)
  bool serve = false;  // serve tuning trials read from standard input, one JSON line each (config_trial.hpp)
  std::string triad_stores;    // a shape: time a triad beside it when large (run_shape.hpp); empty: none
  double triad_min_bytes = 0;  // [bytes per call] "large" for the triad; 0: triad_probe_min_bytes()
};
int worker(const worker_command& command);

struct calibrate_command {
  std::string backend = "auto";
  std::size_t elements = std::size_t{1} << 25;
};
int calibrate(const calibrate_command& command);

}  // namespace kbench::cli
