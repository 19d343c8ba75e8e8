#pragma once
// Runs one piece of the suite in a fresh kbench process (never a fork: a fork after OpenCL or CUDA is
// initialized is undefined), so that a kernel that crashes or hangs costs only its own shape. The child runs
// in its own process group: a Ctrl-C at the terminal reaches the runner, which lets the current shape finish.

#include <kbench/suite/workers.hpp>

#include <sys/types.h>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace kbench::suite {

struct worker_outcome {
  int exit_code = -1;      // when it exited
  int signal = 0;          // when a signal killed it (SIGSEGV, ...), else 0
  bool timed_out = false;  // killed by us after the timeout
  bool aborted = false;    // killed by us after abort_workers()
  std::string out;         // its standard output
  std::string err;         // its standard error
  double elapsed_s = 0;    // [s]
};

/// A worker's answer: the last line of its standard output, parsed as JSON (discarded, is_discarded(),
/// when it is not JSON; the lines before are the kernel's or a driver's own output).
[[nodiscard]] nlohmann::json answer_of(const worker_outcome& outcome);

// abort_workers(), workers_aborted(), watch_parent(), exec_self_with_worker_environment():
// kbench/suite/workers.hpp.

/// Starts `argv` (argv[0] = the executable path) with worker_environment(environment_overrides), waits at
/// most `timeout_s` seconds (<= 0: no limit), and collects its output. Throws kbench::error only when the
/// process cannot be started.
[[nodiscard]] worker_outcome run_worker(const std::vector<std::string>& argv, double timeout_s,
                                        const std::vector<std::string>& environment_overrides = {});

/// Starts `argv` in its own process group with the worker environment and the given descriptors as its
/// standard input (-1: inherited), output and error; returns its pid. Throws kbench::error if it cannot.
[[nodiscard]] pid_t spawn_worker(const std::vector<std::string>& argv, int stdin_fd, int stdout_fd,
                                 int stderr_fd, const std::vector<std::string>& environment_overrides = {});

/// libgomp's spin count in workers (unless GOMP_SPINCOUNT is set): a fraction of a millisecond of polling
/// instead of the default's milliseconds. Torch's OpenMP threads still poll through its back-to-back calls,
/// but stop soon after its turn of the interleaved latency, instead of taking the cores from the next
/// implementation's turn and from the tuning trials that run after the torch reference
/// (docs/code-figures.md).

inline constexpr const char* worker_gomp_spin_count = "10000";

/// The environment a worker starts with: this process's with `overrides` ("NAME=value") in place of the
/// variables they name, plus GOMP_SPINCOUNT (above) when neither sets it.
[[nodiscard]] std::vector<std::string> worker_environment(const std::vector<std::string>& overrides = {});

/// The path of the running executable (/proc/self/exe).
[[nodiscard]] std::string self_executable();

}  // namespace kbench::suite
