#include <kbench/error.hpp>

#include <cstring>

namespace kbench::detail {

void throw_error(const char* file, int line, const std::string& message) {
  // Keep only the path below the repository root so messages do not depend on the build machine.
  const char* shown = file;
  for (const char* marker : {"/src/", "/kernels/", "/apps/", "/tests/", "/bench/"}) {
    if (const char* found = std::strstr(file, marker)) {
      shown = found + 1;
      break;
    }
  }
  throw error(fmt::format("{} ({}:{})", message, shown, line));
}

}  // namespace kbench::detail
