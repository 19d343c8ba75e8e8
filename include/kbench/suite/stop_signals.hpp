#pragma once
// How a run of the suite stops on Ctrl-C, SIGTERM (how CI cancels a job and `timeout` ends one) and SIGHUP
// (the terminal closed), for every front-end alike (`kbench run`, `python -m kbench run`): the first signal
// lets the current shape finish and then stops, the second kills the current worker at once (abort_workers),
// and either way the shapes measured so far are written; a third ends the process as the signal would have.

#include <array>
#include <csignal>

namespace kbench::suite {

/// The stop handlers, installed for as long as it lives: through the run and the writing of its results.
/// Constructing one resets the count of signals received.
class stop_signal_scope {
 public:
  stop_signal_scope();
  ~stop_signal_scope();
  stop_signal_scope(const stop_signal_scope&) = delete;
  stop_signal_scope& operator=(const stop_signal_scope&) = delete;

 private:
  std::array<struct sigaction, 3> m_previous{};
};

/// Whether a stop signal came since the last stop_signal_scope was made (poll it between shapes).
[[nodiscard]] bool stop_requested() noexcept;

/// The first stop signal received (SIGINT, SIGTERM or SIGHUP), or 0.
[[nodiscard]] int first_stop_signal() noexcept;

}  // namespace kbench::suite
