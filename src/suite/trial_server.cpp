#include <kbench/error.hpp>
#include <kbench/suite/detail/trial_server.hpp>
#include <kbench/suite/detail/worker_process.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <optional>
#include <thread>

namespace kbench::runner {

namespace {

using tune::eval_status;

constexpr std::size_t kept_error_chars = 400;  // the end of a worker's standard error kept for messages
constexpr auto exit_grace = std::chrono::seconds(5);  // a worker told to stop gets this long to exit

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

/// Waits for `pid` at most `grace`; kills its group after that. Returns its wait status.
int reap(pid_t pid, std::chrono::milliseconds grace) {
  const auto until = std::chrono::steady_clock::now() + grace;
  int status = 0;
  while (true) {
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) return status;
    if (done < 0 && errno != EINTR) return 0;
    if (std::chrono::steady_clock::now() >= until) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ::kill(-pid, SIGKILL);
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

}  // namespace

trial_server::trial_server(std::vector<std::string> argv) : m_argv(std::move(argv)) {}

trial_server::~trial_server() {
  stop(false);
}

void trial_server::start() {
  int input[2], output[2], errors[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, input) != 0) {
    KBENCH_THROW("socketpair failed: {}", std::strerror(errno));
  }
  if (::pipe2(output, O_CLOEXEC) != 0 || ::pipe2(errors, O_CLOEXEC) != 0) {
    const int e = errno;
    for (int fd : {input[0], input[1]}) ::close(fd);
    KBENCH_THROW("pipe2 failed: {}", std::strerror(e));
  }
  try {
    m_pid = spawn_worker(m_argv, input[1], output[1], errors[1]);
  } catch (...) {
    for (int fd : {input[0], input[1], output[0], output[1], errors[0], errors[1]}) ::close(fd);
    throw;
  }
  for (int fd : {input[1], output[1], errors[1]}) ::close(fd);
  m_to_worker = input[0];
  m_from_worker = output[0];
  m_worker_errors = errors[0];
  m_out.clear();
  m_err.clear();
  ++m_started;
}

int trial_server::stop(bool kill) {
  if (m_pid < 0) return 0;
  close_fd(m_to_worker);  // a served worker exits at the end of its input
  if (kill) ::kill(-m_pid, SIGKILL);
  const int status = reap(m_pid, kill ? std::chrono::milliseconds(0) : exit_grace);
  close_fd(m_from_worker);
  close_fd(m_worker_errors);
  m_pid = -1;
  return status;
}

std::vector<trial_outcome> trial_server::run(const trial_request& request, double timeout_s) {
  const auto started = std::chrono::steady_clock::now();
  std::vector<trial_outcome> failed(request.configs.size());
  for (std::size_t i = 0; i < request.configs.size(); ++i) failed[i].values = request.configs[i];
  const auto fail_all = [&](eval_status status, const std::string& why) {
    for (auto& f : failed) {
      f.status = status;
      f.message = why;
    }
    return failed;
  };
  const eval_status died =
      request.phase == trial_phase::compile ? eval_status::compile_error : eval_status::runtime_error;
  // The worker ended before answering: its exit status says how.
  const auto fail_dead = [&] {
    const int status = stop(false);
    if (WIFSIGNALED(status)) {
      return fail_all(
          died, fmt::format("worker died on signal {} ({})", WTERMSIG(status), strsignal(WTERMSIG(status))));
    }
    std::string err = m_err;
    while (!err.empty() && (err.back() == '\n' || err.back() == '\r')) err.pop_back();
    return fail_all(died, fmt::format("worker exited with status {} before answering: {}",
                                      WIFEXITED(status) ? WEXITSTATUS(status) : -1, err));
  };

  if (m_pid < 0) {
    try {
      start();
    } catch (const std::exception& e) {
      return fail_all(eval_status::runtime_error, fmt::format("cannot start a worker: {}", e.what()));
    }
  }
  const std::string line = to_request_line(request) + "\n";
  for (std::size_t sent = 0; sent < line.size();) {
    const ssize_t n = ::send(m_to_worker, line.data() + sent, line.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return fail_dead();
    sent += static_cast<std::size_t>(n);
  }

  std::array<char, 65536> chunk{};
  while (true) {
    // An answer: a whole line that starts with the prefix (other lines are the kernel's or a driver's).
    for (std::size_t at = 0; at < m_out.size();) {
      const std::size_t end = m_out.find('\n', at);
      if (end == std::string::npos) break;
      if (m_out.compare(at, trial_answer_prefix.size(), trial_answer_prefix) == 0) {
        const std::string answer =
            m_out.substr(at + trial_answer_prefix.size(), end - at - trial_answer_prefix.size());
        m_out.erase(0, end + 1);
        std::vector<trial_outcome> outcomes;
        try {
          outcomes = nlohmann::json::parse(answer).get<std::vector<trial_outcome>>();
        } catch (const std::exception& e) {
          stop(true);
          return fail_all(eval_status::runtime_error,
                          fmt::format("unreadable worker answer ({}): {}", e.what(), answer));
        }
        if (outcomes.size() != request.configs.size()) {
          stop(true);
          return fail_all(eval_status::runtime_error, fmt::format("worker returned {} results for {} configs",
                                                                  outcomes.size(), request.configs.size()));
        }
        for (const auto& o : outcomes) {
          if (o.status != eval_status::ok) {
            stop(false);  // the next trial gets a fresh worker
            break;
          }
        }
        return outcomes;
      }
      at = end + 1;
    }
    // Lines read so far hold no answer: drop them, so that a long-lived worker's other output is neither
    // kept nor scanned again.
    m_out.erase(0, m_out.rfind('\n') == std::string::npos ? 0 : m_out.rfind('\n') + 1);
    const double left_s =
        timeout_s - std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (timeout_s > 0 && left_s <= 0) {
      stop(true);
      return fail_all(eval_status::timeout, fmt::format("{} worker killed after the {:.0f} s timeout",
                                                        to_string(request.phase), timeout_s));
    }
    if (workers_aborted()) {  // a second Ctrl-C or SIGTERM: the trial is dropped, not judged
      stop(true);
      return fail_all(eval_status::runtime_error, "stopped: kbench was interrupted");
    }
    std::array<pollfd, 2> fds{{{m_from_worker, POLLIN, 0}, {m_worker_errors, POLLIN, 0}}};
    constexpr double abort_poll_ms = 100;  // [ms] how soon a waiting trial sees abort_workers()
    const int ready =
        ::poll(fds.data(), m_worker_errors >= 0 ? 2 : 1,
               static_cast<int>(timeout_s > 0 ? std::min(abort_poll_ms, left_s * 1000 + 1) : abort_poll_ms));
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) return fail_dead();
    if (m_worker_errors >= 0 && (fds[1].revents & (POLLIN | POLLHUP | POLLERR)) != 0) {
      const ssize_t n = ::read(m_worker_errors, chunk.data(), chunk.size());
      if (n > 0) {
        m_err.append(chunk.data(), static_cast<std::size_t>(n));
        if (m_err.size() > kept_error_chars) m_err.erase(0, m_err.size() - kept_error_chars);
      } else if (n == 0 || errno != EINTR) {
        close_fd(m_worker_errors);
      }
    }
    if ((fds[0].revents & (POLLIN | POLLHUP | POLLERR)) != 0) {
      const ssize_t n = ::read(m_from_worker, chunk.data(), chunk.size());
      if (n > 0) {
        m_out.append(chunk.data(), static_cast<std::size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        return fail_dead();  // end of its output: it exited or died
      }
    }
  }
}

}  // namespace kbench::runner
