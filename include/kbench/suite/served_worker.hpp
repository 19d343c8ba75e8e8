#pragma once
// A long-lived worker process that answers requests one at a time: one JSON line in on its standard input,
// one answer line out on its standard output (a line that starts with a prefix: the kernel's or a driver's
// own output may come between). The suite's isolation for every kind of target: the tuner's trial servers
// (`kbench worker` with task "trials", trial_server.hpp) and the Python front-end's workers (`python -m
// kbench.worker`) both run on it, so that a crash, a hang or garbage is judged the same way for a C++ and a
// Python kernel.
//
// The worker starts on the first request, in its own process group, with the worker environment
// (parent_pid_variable set: it dies with the process that started it). A worker that dies, hangs past the
// request's timeout (killed) or answers what is not a line of the protocol ends; the next request starts a
// fresh one. Start-up (loading libtorch, importing torch or JAX) is paid once per worker, not per request.

#include <sys/types.h>

#include <string>
#include <string_view>
#include <vector>

namespace kbench::suite {

/// What became of one request.
struct served_reply {
  enum class outcome {
    answered,  // `answer` holds the answer line, without its prefix
    died,      // the worker ended before answering: `signal` or `exit_code` says how
    timeout,   // killed after the request's timeout
    aborted,   // killed after abort_workers() (a second Ctrl-C or SIGTERM)
    failed,    // it could not be started, or its input could not be written
  };
  outcome what = outcome::failed;
  std::string answer;
  int signal = 0;       // the signal that killed it (died), else 0
  int exit_code = -1;   // its exit status (died without a signal), else -1
  std::string message;  // why there is no answer, for people: "worker died on signal 11 (Segmentation fault)"
  std::string errors;   // the end of its standard error
};

[[nodiscard]] std::string_view to_string(served_reply::outcome outcome);

class served_worker {
 public:
  /// `argv`: the worker's command line (argv[0] = the executable path); `environment`: "NAME=value"
  /// overrides of the worker environment; `answer_prefix`: what starts an answer line.
  served_worker(std::vector<std::string> argv, std::vector<std::string> environment,
                std::string answer_prefix);
  ~served_worker();
  served_worker(const served_worker&) = delete;
  served_worker& operator=(const served_worker&) = delete;

  /// Sends `line` (one line of JSON, without its newline) to the worker, started first if none runs, and
  /// waits at most `timeout_s` seconds (<= 0: no limit) for its answer. Never throws.
  [[nodiscard]] served_reply request(const std::string& line, double timeout_s);

  /// Ends the worker if one runs: closes its input and waits a few seconds for it to exit, or kills its
  /// process group at once (`kill`, or when it does not exit in time). Returns its wait status (0: none ran).
  int stop(bool kill);

  [[nodiscard]] bool running() const { return m_pid >= 0; }
  /// Workers started so far (1 when every request was served by one).
  [[nodiscard]] int workers_started() const { return m_started; }

 private:
  void start();
  [[nodiscard]] served_reply dead_reply();

  std::vector<std::string> m_argv;
  std::vector<std::string> m_environment;
  std::string m_prefix;
  pid_t m_pid = -1;
  int m_to_worker = -1;      // its standard input (a socket: a dead worker gives an error, not SIGPIPE)
  int m_from_worker = -1;    // its standard output
  int m_worker_errors = -1;  // its standard error
  std::string m_out;         // output read but not yet consumed
  std::string m_err;         // the end of its standard error, for messages
  int m_started = 0;
};

}  // namespace kbench::suite
