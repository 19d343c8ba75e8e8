#pragma once
// Stopping kbench from outside, as CI and users do (SIGTERM, a second Ctrl-C, SIGKILL), and checking what
// is left: each process of the run carries a marker in its environment, so that a worker that outlived
// its kbench is found in /proc.

#include "cli/run_kbench.hpp"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>

namespace kbench::test {

/// How many live processes have `marker` ("NAME=value") in their environment.
inline int processes_marked(const std::string& marker) {
  int found = 0;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(entry.path() / "environ", std::ios::binary);
    const std::string environ_text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    if (environ_text.find(std::string(1, '\0') + marker + '\0') != std::string::npos ||
        environ_text.rfind(marker + '\0', 0) == 0) {
      ++found;
    }
  }
  return found;
}

/// Polls up to `limit_s` for `done()`; whether it came true.
template <class Predicate>
bool wait_for(Predicate done, double limit_s) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(limit_s);
  while (!done()) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return true;
}

/// Runs `kbench ARGS` in the background with `env_prefix` (stdout and stderr to `log`), waits until `log`
/// holds `ready_text` (at most 180 s), runs the shell `action` ($p is kbench's pid) and waits for kbench;
/// returns its exit status and its log.
inline process_result run_then(const std::string& env_prefix, const std::string& args,
                               const std::filesystem::path& log, const std::string& ready_text,
                               const std::string& action) {
  const std::string script = env_prefix + " " + std::string(KBENCH_EXE) + " " + args + " >" + log.string() +
                             " 2>&1 & p=$!; i=0; while ! grep -qF '" + ready_text + "' " + log.string() +
                             " && [ $i -lt 1800 ]; do sleep 0.1; i=$((i+1)); done; " + action +
                             "; wait $p; exit $?";
  process_result result = run_shell(script);
  std::ifstream in(log);
  result.output = std::string{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  return result;
}

/// run_then with `marker` ("NAME=value") in kbench's environment, and as the action, 2 s later, the
/// `signals` ("TERM", "TERM TERM", "KILL") a second apart.
inline process_result run_and_signal(const std::string& env_prefix, const std::string& marker,
                                     const std::string& args, const std::filesystem::path& log,
                                     const std::string& ready_text, const std::string& signals) {
  return run_then(env_prefix + " " + marker, args, log, ready_text,
                  "sleep 2; for s in " + signals + "; do kill -$s $p; sleep 1; done");
}

}  // namespace kbench::test
