#include <kbench/io/move_aside.hpp>

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <cstring>

namespace kbench::io {

std::string move_aside(const std::filesystem::path& path) {
  const auto stamp =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
          .count();
  // Never over another aside: a second corrupt file in the same second gets "-2", then "-3", ...
  for (int n = 1; n <= 1000; ++n) {
    std::filesystem::path aside = path;
    aside += n == 1 ? fmt::format(".corrupt-{}", stamp) : fmt::format(".corrupt-{}-{}", stamp, n);
    int moved = ::renameat2(AT_FDCWD, path.c_str(), AT_FDCWD, aside.c_str(), RENAME_NOREPLACE);
    if (moved != 0 && errno == EINVAL) {  // a file system without RENAME_NOREPLACE: link refuses too
      moved = ::link(path.c_str(), aside.c_str());
      if (moved == 0) ::unlink(path.c_str());
    }
    if (moved == 0) return fmt::format("kept as {}", aside.filename().string());
    if (errno != EEXIST) return fmt::format("could not move it aside ({})", std::strerror(errno));
  }
  return "could not move it aside (a thousand asides of it this second already)";
}

}  // namespace kbench::io
