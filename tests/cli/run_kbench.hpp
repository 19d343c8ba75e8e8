#pragma once
// Runs the kbench binary built beside the tests (KBENCH_EXE) and captures its output and exit status.

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

/// `env_prefix` goes before the executable: "NAME=value " assignments, or a wrapper such as "timeout 5 ".
inline process_result run_kbench_env(const std::string& env_prefix, const std::string& args) {
  const std::string command = env_prefix + std::string(KBENCH_EXE) + " " + args + " 2>&1";
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

inline process_result run_kbench(const std::string& args) {
  return run_kbench_env("", args);
}

/// A fresh empty directory for one test's files.
inline std::filesystem::path scratch_dir(const std::string& name) {
  auto dir =
      std::filesystem::temp_directory_path() / ("kbench-cli-test-" + name + "-" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace kbench::test
