#pragma once
// Runs one piece of the suite in a fresh kbench process (never a fork: a fork after OpenCL or CUDA is
// initialized is undefined), so that a kernel that crashes or hangs costs only its own shape. The child runs
// in its own process group: a Ctrl-C at the terminal reaches the runner, which lets the current shape finish.

#include <string>
#include <vector>

namespace kbench::runner {

struct worker_outcome {
  int exit_code = -1;      // when it exited
  int signal = 0;          // when a signal killed it (SIGSEGV, ...), else 0
  bool timed_out = false;  // killed by us after the timeout
  std::string out;         // its standard output
  std::string err;         // its standard error
  double elapsed_s = 0;    // [s]
};

/// Starts `argv` (argv[0] = the executable path), waits at most `timeout_s` seconds (<= 0: no limit), and
/// collects its output. Throws kbench::error only when the process cannot be started.
[[nodiscard]] worker_outcome run_worker(const std::vector<std::string>& argv, double timeout_s);

/// The path of the running executable (/proc/self/exe).
[[nodiscard]] std::string self_executable();

}  // namespace kbench::runner
