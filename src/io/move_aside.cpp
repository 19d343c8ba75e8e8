#include <kbench/io/move_aside.hpp>

#include <fmt/format.h>

#include <chrono>
#include <system_error>

namespace kbench::io {

std::string move_aside(const std::filesystem::path& path) {
  const auto stamp =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
          .count();
  std::filesystem::path aside = path;
  aside += fmt::format(".corrupt-{}", stamp);
  std::error_code ec;
  std::filesystem::rename(path, aside, ec);
  return ec ? fmt::format("could not move it aside ({})", ec.message())
            : fmt::format("kept as {}", aside.filename().string());
}

}  // namespace kbench::io
