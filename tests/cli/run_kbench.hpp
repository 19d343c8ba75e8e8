#pragma once
// Runs the kbench binary built beside the tests (KBENCH_EXE) and captures its output and exit status.

#include "support/scratch_dir.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <string>

namespace kbench::test {

struct process_result {
  int exit_code = -1;
  std::string output;  // stdout and stderr, interleaved
};

/// Runs the shell `command` and returns its exit status and standard output.
inline process_result run_shell(const std::string& command) {
  process_result result;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return result;
  std::array<char, 4096> chunk{};
  while (std::fgets(chunk.data(), static_cast<int>(chunk.size()), pipe) != nullptr)
    result.output += chunk.data();
  const int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

/// `env_prefix` goes before the executable: "NAME=value " assignments, or a wrapper such as "timeout 5 ".
inline process_result run_kbench_env(const std::string& env_prefix, const std::string& args) {
  return run_shell(env_prefix + std::string(KBENCH_EXE) + " " + args + " 2>&1");
}

inline process_result run_kbench(const std::string& args) {
  return run_kbench_env("", args);
}

}  // namespace kbench::test
