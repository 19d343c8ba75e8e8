#pragma once
// Scratch directories for tests that write files: fresh and empty when handed out, and removed when the test
// process exits, unless a test in it failed (then they stay, for a look at what the test wrote).

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <mutex>
#include <string>
#include <system_error>
#include <vector>

namespace kbench::test {

namespace detail {

/// The directories this process handed out; removes them at exit if every test passed.
class scratch_registry {
 public:
  void add(const std::filesystem::path& dir) {
    const std::lock_guard lock(m_mutex);
    m_dirs.push_back(dir);
  }
  ~scratch_registry() {
    // A forked child that exits normally must not remove its parent's directories.
    if (::getpid() != m_owner) return;
    // GoogleTest's UnitTest is never destroyed, so it can still be asked here.
    if (!::testing::UnitTest::GetInstance()->Passed()) return;
    for (const auto& dir : m_dirs) {
      std::error_code ignored;
      std::filesystem::remove_all(dir, ignored);
    }
  }

 private:
  const pid_t m_owner = ::getpid();
  std::mutex m_mutex;
  std::vector<std::filesystem::path> m_dirs;
};

inline scratch_registry& registry() {
  static scratch_registry instance;
  return instance;
}

}  // namespace detail

/// A fresh empty directory <temp>/kbench-<name>-<pid> for one test's files.
inline std::filesystem::path scratch_dir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("kbench-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  detail::registry().add(dir);
  return dir;
}

}  // namespace kbench::test
