#pragma once
// Runs one piece of the suite in a fresh kbench process (never a fork: a fork after OpenCL or CUDA is
// initialized is undefined), so that a kernel that crashes or hangs costs only its own shape. The child runs
// in its own process group: a Ctrl-C at the terminal reaches the runner, which lets the current shape finish.

#include <sys/types.h>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace kbench::runner {

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

/// Makes every run_worker that is waiting kill its worker within a tenth of a second and return with
/// `aborted` set, and every later one return so without starting one: what a second Ctrl-C or SIGTERM
/// asks. Async-signal-safe (a lock-free flag).
void abort_workers() noexcept;

/// Whether abort_workers() was called.
[[nodiscard]] bool workers_aborted() noexcept;

/// The environment variable through which a worker learns the pid of the kbench that started it; a
/// worker whose parent is gone (killed, even with SIGKILL) kills itself and its process group
/// (watch_parent). PR_SET_PDEATHSIG cannot serve: it fires when the spawning *thread* ends, and tuning
/// starts its compile workers from threads that end before the workers should.
inline constexpr const char* parent_pid_variable = "KBENCH_PARENT_PID";

/// In a worker: a thread that checks every parent_poll_ms whether the process that started it is still
/// its parent, and kills this worker's process group when it is not. No-op where the variable is unset.
void watch_parent();
inline constexpr int parent_poll_ms = 100;  // [ms] how soon an orphaned worker ends

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

/// For commands that time torch in this process (`kbench measure`): when GOMP_SPINCOUNT is not set, runs this
/// program again with argv and worker_environment(), since libgomp reads its spin count once, when it is
/// loaded, before main. Without it torch's OpenMP threads spin for milliseconds after each torch turn and
/// take a core from the next implementation's turn (docs/code-figures.md). Returns only when the variable is
/// set already or the exec failed (then after a note on stderr: the command goes on, as before).

void exec_self_with_worker_environment(char** argv);

/// The path of the running executable (/proc/self/exe).
[[nodiscard]] std::string self_executable();

}  // namespace kbench::runner
