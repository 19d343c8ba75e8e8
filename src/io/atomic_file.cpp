#include <kbench/error.hpp>
#include <kbench/io/atomic_file.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace kbench::io {

void write_file_atomically(const std::filesystem::path& path, const std::string& text) {
  const std::filesystem::path dir = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  std::string tmpl = (dir / ("." + path.filename().string() + ".XXXXXX")).string();
  const int fd = mkstemp(tmpl.data());
  if (fd < 0)
    KBENCH_THROW("cannot create a temporary file beside {}: {}", path.string(), std::strerror(errno));
  std::size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      ::unlink(tmpl.c_str());
      KBENCH_THROW("cannot write {}: {}", tmpl, std::strerror(err));
    }
    written += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    ::unlink(tmpl.c_str());
    KBENCH_THROW("cannot flush {}: {}", tmpl, std::strerror(errno));
  }
  ::chmod(tmpl.c_str(), 0644);
  if (std::rename(tmpl.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmpl.c_str());
    KBENCH_THROW("cannot replace {}: {}", path.string(), std::strerror(err));
  }
}

}  // namespace kbench::io
