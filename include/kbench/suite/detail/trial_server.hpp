#pragma once
// A tuning worker that serves one kernel x shape x backend x seed: a `kbench worker` process with task
// "trials", started on the first trial, that runs the trials it is sent (compile, time, retime) one at a
// time, each under its own timeout. The tuner keeps one per core for the parallel compile trials and one for
// timing. Why not a fresh process per trial: every kbench process loads libtorch, 0.5-0.7 s on this 2-core VM
// before it does anything, and builds the inputs and the torch reference again, while timing a small config
// takes milliseconds. A served worker pays that once per shape.
//
// Isolation is kept where it matters: a worker that dies, hangs (killed at the timeout) or answers garbage
// gives its trial's configs the matching status, and the next trial starts a fresh worker; so does the trial
// after any config failed in any way (wrong result, error), so that a config that corrupted the worker's
// state or the device (a CUDA context after an illegal address) cannot spoil the configs after it.

#include <kbench/suite/detail/trial_messages.hpp>
#include <kbench/suite/served_worker.hpp>
#include <kbench/suite/tune_shape.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace kbench::suite {

class trial_server {
 public:
  /// `argv`: the worker's command line, `kbench worker {"task":"trials",...}` (argv[0] = the executable
  /// path).
  explicit trial_server(std::vector<std::string> argv);
  ~trial_server();
  trial_server(const trial_server&) = delete;
  trial_server& operator=(const trial_server&) = delete;

  /// Runs the trial in the worker (started if none runs), waiting at most `timeout_s` seconds for the answer.
  /// One outcome per config, in order; a worker's failure becomes every config's status (compile trials
  /// fail as compile_error, the others as runtime_error or timeout). Never throws.
  [[nodiscard]] std::vector<trial_outcome> run(const trial_request& request, double timeout_s);

  /// Workers started so far (1 when every trial passed through one).
  [[nodiscard]] int workers_started() const { return m_worker.workers_started(); }

 private:
  served_worker m_worker;
};

}  // namespace kbench::suite
