#pragma once
// A busy machine for the tests of contention marking: processes that spin on every CPU while they live.

#include <algorithm>
#include <csignal>
#include <thread>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

namespace kbench::test {

/// Processes that keep every CPU busy while they live (each ends itself after 60 s at the latest).
class cpu_hogs {
 public:
  cpu_hogs() {
    for (unsigned i = 0; i < std::max(1u, std::thread::hardware_concurrency()); ++i) {
      const pid_t pid = fork();
      if (pid == 0) {
        alarm(60);
        volatile unsigned long spin = 0;
        for (;;) spin = spin + 1;
      }
      if (pid > 0) m_pids.push_back(pid);
    }
  }
  ~cpu_hogs() {
    for (const pid_t pid : m_pids) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
  }
  cpu_hogs(const cpu_hogs&) = delete;
  cpu_hogs& operator=(const cpu_hogs&) = delete;

 private:
  std::vector<pid_t> m_pids;
};

}  // namespace kbench::test
