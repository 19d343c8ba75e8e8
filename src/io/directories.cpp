#include <kbench/io/directories.hpp>

#include <cstdlib>

namespace kbench::io {

std::filesystem::path cache_directory() {
  if (const char* dir = std::getenv("KBENCH_CACHE_DIR"); dir != nullptr && *dir != '\0') return dir;
  const char* home = std::getenv("HOME");
  return std::filesystem::path(home != nullptr ? home : ".") / ".cache" / "kbench";
}

}  // namespace kbench::io
