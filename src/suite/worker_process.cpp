#include <kbench/error.hpp>
#include <kbench/suite/detail/worker_process.hpp>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <thread>

extern char** environ;

namespace kbench::suite {

namespace {

struct pipe_pair {
  int read_end = -1, write_end = -1;
  pipe_pair() {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) KBENCH_THROW("pipe2 failed: {}", std::strerror(errno));
    read_end = fds[0];
    write_end = fds[1];
  }
  ~pipe_pair() {
    if (read_end >= 0) ::close(read_end);
    if (write_end >= 0) ::close(write_end);
  }
  pipe_pair(const pipe_pair&) = delete;
  pipe_pair& operator=(const pipe_pair&) = delete;
  void close_write() {
    ::close(write_end);
    write_end = -1;
  }
};

std::atomic<bool> g_aborted{false};
static_assert(std::atomic<bool>::is_always_lock_free, "abort_workers is called from signal handlers");

constexpr int abort_poll_ms = 100;  // [ms] how soon a waiting run_worker sees abort_workers()

}  // namespace

nlohmann::json answer_of(const worker_outcome& outcome) {
  std::string_view out = outcome.out;
  while (!out.empty() && out.back() == '\n') out.remove_suffix(1);
  const auto start = out.rfind('\n');
  return nlohmann::json::parse(start == std::string_view::npos ? out : out.substr(start + 1), nullptr,
                               /*allow_exceptions=*/false);
}

void abort_workers() noexcept {
  g_aborted.store(true);
}

bool workers_aborted() noexcept {
  return g_aborted.load();
}

void watch_parent() {
  const char* expected_text = std::getenv(parent_pid_variable);
  if (expected_text == nullptr) return;
  const pid_t expected = static_cast<pid_t>(std::strtol(expected_text, nullptr, 10));
  std::thread([expected] {
    while (::getppid() == expected) std::this_thread::sleep_for(std::chrono::milliseconds(parent_poll_ms));
    // Orphaned: this worker and anything it started (its own process group, as spawn_worker made it).
    if (::getpgrp() == ::getpid()) ::kill(0, SIGKILL);
    ::raise(SIGKILL);
  }).detach();
}

std::string self_executable() {
  std::array<char, PATH_MAX> path{};
  const ssize_t n = ::readlink("/proc/self/exe", path.data(), path.size() - 1);
  if (n <= 0) KBENCH_THROW("cannot read /proc/self/exe: {}", std::strerror(errno));
  return std::string(path.data(), static_cast<std::size_t>(n));
}

std::vector<std::string> worker_environment(const std::vector<std::string>& overrides) {
  auto name_of = [](const std::string& entry) { return entry.substr(0, entry.find('=') + 1); };
  auto overridden = [&](const std::string& entry) {
    return std::any_of(overrides.begin(), overrides.end(),
                       [&](const std::string& o) { return name_of(o) == name_of(entry); });
  };
  std::vector<std::string> env;
  bool spin_count_set = false;
  for (char** e = environ; *e != nullptr; ++e) {
    if (overridden(*e)) continue;
    env.emplace_back(*e);
    spin_count_set = spin_count_set || env.back().rfind("GOMP_SPINCOUNT=", 0) == 0;
  }
  for (const auto& o : overrides) {
    env.push_back(o);
    spin_count_set = spin_count_set || o.rfind("GOMP_SPINCOUNT=", 0) == 0;
  }
  if (!spin_count_set) env.emplace_back(std::string("GOMP_SPINCOUNT=") + worker_gomp_spin_count);
  return env;
}

void exec_self_with_worker_environment(char** argv) {
  if (std::getenv("GOMP_SPINCOUNT") != nullptr) return;
  std::string path;
  try {
    path = self_executable();
  } catch (const error& e) {
    fmt::print(stderr, "[kbench] note: {}; torch's OpenMP threads keep libgomp's default spin count\n",
               e.what());
    return;
  }
  std::vector<std::string> env = worker_environment();
  std::vector<char*> envp;
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  ::execve(path.c_str(), argv, envp.data());
  fmt::print(stderr,
             "[kbench] note: could not run {} again with GOMP_SPINCOUNT={} ({}); torch's OpenMP threads keep "
             "libgomp's default spin count\n",
             path, worker_gomp_spin_count, std::strerror(errno));
}

pid_t spawn_worker(const std::vector<std::string>& argv, int stdin_fd, int stdout_fd, int stderr_fd,
                   const std::vector<std::string>& environment_overrides) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (stdin_fd >= 0) posix_spawn_file_actions_adddup2(&actions, stdin_fd, STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, stdout_fd, STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, stderr_fd, STDERR_FILENO);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setpgroup(&attributes, 0);  // its own group: terminal SIGINT goes to the runner only
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);

  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::vector<std::string> overrides = environment_overrides;
  overrides.push_back(fmt::format("{}={}", parent_pid_variable, ::getpid()));
  std::vector<std::string> env_strings = worker_environment(overrides);
  std::vector<char*> env;
  for (auto& e : env_strings) env.push_back(e.data());
  env.push_back(nullptr);
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, args[0], &actions, &attributes, args.data(), env.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (spawned != 0) KBENCH_THROW("cannot start {}: {}", argv.at(0), std::strerror(spawned));
  return pid;
}

worker_outcome run_worker(const std::vector<std::string>& argv, double timeout_s,
                          const std::vector<std::string>& environment_overrides) {
  const auto started = std::chrono::steady_clock::now();
  if (workers_aborted()) {
    worker_outcome outcome;
    outcome.aborted = true;
    return outcome;
  }
  pipe_pair out, err;
  const pid_t pid = spawn_worker(argv, -1, out.write_end, err.write_end, environment_overrides);
  out.close_write();
  err.close_write();

  worker_outcome outcome;
  std::array<pollfd, 2> fds{{{out.read_end, POLLIN, 0}, {err.read_end, POLLIN, 0}}};
  std::array<std::string*, 2> sinks{&outcome.out, &outcome.err};
  int open_pipes = 2;
  std::array<char, 65536> chunk{};
  while (open_pipes > 0) {
    if (workers_aborted()) {
      outcome.aborted = true;
      ::kill(-pid, SIGKILL);
      break;
    }
    int wait_ms = abort_poll_ms;
    if (timeout_s > 0) {
      const double left_s =
          timeout_s - std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      if (left_s <= 0) {
        outcome.timed_out = true;
        ::kill(-pid, SIGKILL);  // the whole group: the worker and anything it started
        break;
      }
      wait_ms = static_cast<int>(std::min<double>(wait_ms, left_s * 1000 + 1));
    }
    const int ready = ::poll(fds.data(), fds.size(), wait_ms);
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) break;
    for (std::size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].fd < 0 || (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      const ssize_t n = ::read(fds[i].fd, chunk.data(), chunk.size());
      if (n > 0) {
        sinks[i]->append(chunk.data(), static_cast<std::size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        fds[i].fd = -1;  // poll ignores negative descriptors
        --open_pipes;
      }
    }
  }

  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) outcome.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status) && !outcome.timed_out && !outcome.aborted) outcome.signal = WTERMSIG(status);
  outcome.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return outcome;
}

}  // namespace kbench::suite
