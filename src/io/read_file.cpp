#include <kbench/error.hpp>
#include <kbench/io/read_file.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <array>
#include <cerrno>
#include <cstring>

namespace kbench::io {

namespace {

std::string size_text(std::uintmax_t bytes) {
  return bytes >= (1u << 20) ? fmt::format("{} MiB", bytes >> 20) : fmt::format("{} bytes", bytes);
}

}  // namespace

std::string read_file(const std::filesystem::path& path, std::uintmax_t max_bytes, std::string_view what) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    throw usage_error(fmt::format("cannot read the {} {}: {}", what, path.string(), std::strerror(errno)));
  struct closer {
    int fd;
    ~closer() { ::close(fd); }
  } closing{fd};
  struct stat info {};
  if (::fstat(fd, &info) == 0) {
    if (S_ISDIR(info.st_mode))
      throw usage_error(fmt::format("the {} {} is a directory", what, path.string()));
    if (S_ISREG(info.st_mode) && static_cast<std::uintmax_t>(info.st_size) > max_bytes) {
      throw usage_error(fmt::format("the {} {} is larger than kbench reads ({}; the limit is {})", what,
                                    path.string(), size_text(static_cast<std::uintmax_t>(info.st_size)),
                                    size_text(max_bytes)));
    }
  }
  std::string text;
  std::array<char, 65536> chunk{};
  for (;;) {
    const ssize_t n = ::read(fd, chunk.data(), chunk.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0)
      throw usage_error(fmt::format("cannot read the {} {}: {}", what, path.string(), std::strerror(errno)));
    if (n == 0) return text;
    text.append(chunk.data(), static_cast<std::size_t>(n));
    if (text.size() > max_bytes) {
      throw usage_error(fmt::format("the {} {} holds more than kbench reads (the limit is {})", what,
                                    path.string(), size_text(max_bytes)));
    }
  }
}

}  // namespace kbench::io
