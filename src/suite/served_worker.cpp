#include <kbench/error.hpp>
#include <kbench/suite/detail/worker_process.hpp>
#include <kbench/suite/served_worker.hpp>

#include <fmt/format.h>

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
#include <thread>

namespace kbench::suite {

namespace {

constexpr std::size_t kept_error_chars = 400;  // the end of a worker's standard error kept for messages
constexpr auto exit_grace = std::chrono::seconds(5);  // a worker told to stop gets this long to exit
constexpr double abort_poll_ms = 100;                 // [ms] how soon a waiting request sees abort_workers()

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

std::string trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  return text;
}

}  // namespace

std::string_view to_string(served_reply::outcome outcome) {
  switch (outcome) {
    case served_reply::outcome::answered:
      return "answered";
    case served_reply::outcome::died:
      return "died";
    case served_reply::outcome::timeout:
      return "timeout";
    case served_reply::outcome::aborted:
      return "aborted";
    case served_reply::outcome::failed:
      return "failed";
  }
  return "failed";
}

served_worker::served_worker(std::vector<std::string> argv, std::vector<std::string> environment,
                             std::string answer_prefix)
    : m_argv(std::move(argv)), m_environment(std::move(environment)), m_prefix(std::move(answer_prefix)) {}

served_worker::~served_worker() {
  stop(false);
}

void served_worker::start() {
  int input[2], output[2], errors[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, input) != 0) {
    KBENCH_THROW("socketpair failed: {}", std::strerror(errno));
  }
  if (::pipe2(output, O_CLOEXEC) != 0) {
    const int e = errno;
    for (int fd : {input[0], input[1]}) ::close(fd);
    KBENCH_THROW("pipe2 failed: {}", std::strerror(e));
  }
  if (::pipe2(errors, O_CLOEXEC) != 0) {
    const int e = errno;
    for (int fd : {input[0], input[1], output[0], output[1]}) ::close(fd);
    KBENCH_THROW("pipe2 failed: {}", std::strerror(e));
  }
  try {
    m_pid = spawn_worker(m_argv, input[1], output[1], errors[1], m_environment);
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

int served_worker::stop(bool kill) {
  if (m_pid < 0) return 0;
  close_fd(m_to_worker);  // a served worker exits at the end of its input
  if (kill) ::kill(-m_pid, SIGKILL);
  const int status = reap(m_pid, kill ? std::chrono::milliseconds(0) : exit_grace);
  close_fd(m_from_worker);
  close_fd(m_worker_errors);
  m_pid = -1;
  return status;
}

served_reply served_worker::dead_reply() {
  served_reply reply;
  reply.what = served_reply::outcome::died;
  reply.errors = trimmed(m_err);
  const int status = stop(false);
  if (WIFSIGNALED(status)) {
    reply.signal = WTERMSIG(status);
    reply.message = fmt::format("worker died on signal {} ({})", reply.signal, strsignal(reply.signal));
  } else {
    reply.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    reply.message =
        fmt::format("worker exited with status {} before answering: {}", reply.exit_code, reply.errors);
  }
  return reply;
}

served_reply served_worker::request(const std::string& line, double timeout_s) {
  const auto started = std::chrono::steady_clock::now();
  const auto ended = [&](served_reply::outcome what, std::string message) {
    served_reply reply;
    reply.what = what;
    reply.message = std::move(message);
    reply.errors = trimmed(m_err);
    stop(true);
    return reply;
  };
  if (workers_aborted()) return ended(served_reply::outcome::aborted, "stopped: kbench was interrupted");
  if (m_pid < 0) {
    try {
      start();
    } catch (const std::exception& e) {
      return ended(served_reply::outcome::failed, fmt::format("cannot start a worker: {}", e.what()));
    }
  }
  const std::string sent_line = line + "\n";
  for (std::size_t sent = 0; sent < sent_line.size();) {
    const ssize_t n = ::send(m_to_worker, sent_line.data() + sent, sent_line.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return dead_reply();
    sent += static_cast<std::size_t>(n);
  }

  std::array<char, 65536> chunk{};
  while (true) {
    // An answer: a whole line that starts with the prefix (other lines are the kernel's or a driver's).
    for (std::size_t at = 0; at < m_out.size();) {
      const std::size_t end = m_out.find('\n', at);
      if (end == std::string::npos) break;
      if (m_out.compare(at, m_prefix.size(), m_prefix) == 0) {
        served_reply reply;
        reply.what = served_reply::outcome::answered;
        reply.answer = m_out.substr(at + m_prefix.size(), end - at - m_prefix.size());
        m_out.erase(0, end + 1);
        return reply;
      }
      at = end + 1;
    }
    // Lines read so far hold no answer: drop them, so that a long-lived worker's other output is neither
    // kept nor scanned again.
    const std::size_t last_newline = m_out.rfind('\n');
    m_out.erase(0, last_newline == std::string::npos ? 0 : last_newline + 1);
    const double left_s =
        timeout_s - std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (timeout_s > 0 && left_s <= 0) {
      return ended(served_reply::outcome::timeout,
                   fmt::format("worker killed after the {:g} s timeout", timeout_s));
    }
    if (workers_aborted()) return ended(served_reply::outcome::aborted, "stopped: kbench was interrupted");
    std::array<pollfd, 2> fds{{{m_from_worker, POLLIN, 0}, {m_worker_errors, POLLIN, 0}}};
    const int ready =
        ::poll(fds.data(), m_worker_errors >= 0 ? 2 : 1,
               static_cast<int>(timeout_s > 0 ? std::min(abort_poll_ms, left_s * 1000 + 1) : abort_poll_ms));
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) return dead_reply();
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
        return dead_reply();  // end of its output: it exited or died
      }
    }
  }
}

}  // namespace kbench::suite
