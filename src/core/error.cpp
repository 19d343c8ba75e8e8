#include <kbench/error.hpp>

#include <cstdlib>
#include <cstring>

namespace kbench::detail {

void throw_error(const char* file, int line, const std::string& message) {
  // Users read the message alone; kbench's own source place is for its developers, shown with
  // KBENCH_DEBUG=1.
  const char* debug = std::getenv("KBENCH_DEBUG");
  if (debug == nullptr || *debug == '\0' || std::strcmp(debug, "0") == 0) throw error(message);
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
