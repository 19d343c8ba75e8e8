#pragma once
// What every front-end needs of the suite's worker processes: stopping them all at once (a second Ctrl-C or
// SIGTERM), and, in a worker, ending itself when the process that started it is gone. Workers are started by
// the suite (suite.hpp, served_worker.hpp); a front-end only stops them.

namespace kbench::suite {

/// Makes every worker that is being waited for killed within a tenth of a second (its request returns as
/// aborted), and every later request return so without starting one: what a second Ctrl-C or SIGTERM
/// asks. Async-signal-safe (a lock-free flag).
void abort_workers() noexcept;

/// Whether abort_workers() was called.
[[nodiscard]] bool workers_aborted() noexcept;

/// The environment variable through which a worker learns the pid of the process that started it; a
/// worker whose parent is gone (killed, even with SIGKILL) kills itself and its process group
/// (watch_parent). PR_SET_PDEATHSIG cannot serve: it fires when the spawning *thread* ends, and tuning
/// starts its compile workers from threads that end before the workers should.
inline constexpr const char* parent_pid_variable = "KBENCH_PARENT_PID";

/// In a worker: a thread that checks every parent_poll_ms whether the process that started it is still
/// its parent, and kills this worker's process group when it is not. No-op where the variable is unset.
void watch_parent();
inline constexpr int parent_poll_ms = 100;  // [ms] how soon an orphaned worker ends

/// For commands that time torch in this process (`kbench measure`): when GOMP_SPINCOUNT is not set, runs this
/// program again with argv and worker_environment(), since libgomp reads its spin count once, when it is
/// loaded, before main. Without it torch's OpenMP threads spin for milliseconds after each torch turn and
/// take a core from the next implementation's turn (docs/code-figures.md). Returns only when the variable is
/// set already or the exec failed (then after a note on stderr: the command goes on, as before).
void exec_self_with_worker_environment(char** argv);

}  // namespace kbench::suite
