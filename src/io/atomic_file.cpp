#include <kbench/error.hpp>
#include <kbench/io/atomic_file.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>

namespace kbench::io {

namespace {

constexpr int max_symlink_hops = 40;  // as the kernel's own limit (ELOOP)

/// The file a write to `path` lands on: `path` itself, or where its chain of symbolic links ends.
std::filesystem::path final_target(std::filesystem::path path) {
  for (int hop = 0; hop < max_symlink_hops; ++hop) {
    std::error_code ec;
    if (!std::filesystem::is_symlink(path, ec)) return path;
    const std::filesystem::path link = std::filesystem::read_symlink(path, ec);
    if (ec) KBENCH_THROW("cannot read the link {}: {}", path.string(), ec.message());
    path = link.is_absolute() ? link : path.parent_path() / link;
  }
  KBENCH_THROW("cannot write {}: too many levels of symbolic links", path.string());
}

/// The directory `path` is in ("." for a bare name).
std::filesystem::path directory_of(const std::filesystem::path& path) {
  return path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
}

void write_all(int fd, const std::string& text, const std::filesystem::path& path) {
  std::size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) KBENCH_THROW("cannot write {}: {}", path.string(), std::strerror(errno));
    written += static_cast<std::size_t>(n);
  }
}

/// A name beside `target` that nothing has yet: ".NAME.kbench-PID-N".
std::filesystem::path temporary_name(const std::filesystem::path& target) {
  static std::atomic<unsigned> counter{0};
  return directory_of(target) /
         fmt::format(".{}.kbench-{}-{}", target.filename().string(), ::getpid(), counter.fetch_add(1));
}

/// Closes a descriptor on every path out of the writer.
struct descriptor {
  int fd = -1;
  ~descriptor() {
    if (fd >= 0) ::close(fd);
  }
};

void fsync_directory(const std::filesystem::path& dir) {
  descriptor d{::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
  // Some file systems refuse fsync on a directory (EINVAL): the rename is done; only its durability
  // across a power cut is then the file system's to give.
  if (d.fd >= 0 && ::fsync(d.fd) != 0 && errno != EINVAL) {
    KBENCH_THROW("cannot flush the directory {}: {}", dir.string(), std::strerror(errno));
  }
}

/// An open unnamed file in `dir` (O_TMPFILE), or -1 with errno set; EOPNOTSUPP and the like mean the file
/// system lacks it.
int open_unnamed(const std::filesystem::path& dir) {
  return ::open(dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
}

bool lacks_unnamed_files(int error_number) {
  return error_number == EOPNOTSUPP || error_number == EISDIR || error_number == EINVAL;
}

}  // namespace

void check_writable(const std::filesystem::path& path, std::string_view what) {
  auto refuse = [&](const std::string& why) {
    throw usage_error(fmt::format("cannot write {} {}: {}", what, path.string(), why));
  };
  std::filesystem::path target;
  try {
    target = final_target(path);
  } catch (const error& e) {
    refuse(e.what());
  }
  const std::filesystem::path dir = directory_of(target);
  struct stat info {};
  if (::stat(dir.c_str(), &info) != 0 || !S_ISDIR(info.st_mode)) {
    refuse(fmt::format("no directory {}", dir.string()));
  }
  if (::stat(target.c_str(), &info) == 0) {
    if (S_ISDIR(info.st_mode)) refuse("it is a directory");
    if (!S_ISREG(info.st_mode)) refuse("it exists and is not a regular file");
    if (::access(target.c_str(), W_OK) != 0) refuse("it is read-only");
  }
  descriptor probe{open_unnamed(dir)};
  if (probe.fd >= 0) return;
  if (!lacks_unnamed_files(errno)) refuse(std::strerror(errno));
  const std::filesystem::path named = temporary_name(target);
  probe.fd = ::open(named.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (probe.fd < 0) refuse(std::strerror(errno));
  ::unlink(named.c_str());
}

void write_file_atomically(const std::filesystem::path& path, const std::string& text) {
  const std::filesystem::path target = final_target(path);
  const std::filesystem::path dir = directory_of(target);
  std::optional<mode_t> kept_mode;
  struct stat existing {};
  if (::stat(target.c_str(), &existing) == 0) kept_mode = existing.st_mode & 07777;

  // An unnamed file first: a kill during the write leaves nothing behind.
  descriptor file{open_unnamed(dir)};
  std::filesystem::path named;  // the temporary's name once it has one
  if (file.fd < 0) {
    if (!lacks_unnamed_files(errno)) {
      KBENCH_THROW("cannot create a file in {}: {}", dir.string(), std::strerror(errno));
    }
    named = temporary_name(target);
    file.fd = ::open(named.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (file.fd < 0) {
      KBENCH_THROW("cannot create a temporary file beside {}: {}", target.string(), std::strerror(errno));
    }
  }
  try {
    write_all(file.fd, text, target);
    if (kept_mode && ::fchmod(file.fd, *kept_mode) != 0) {
      KBENCH_THROW("cannot give {} its mode: {}", target.string(), std::strerror(errno));
    }
    if (::fsync(file.fd) != 0) KBENCH_THROW("cannot flush {}: {}", target.string(), std::strerror(errno));
    if (named.empty()) {
      // Named only now, for the rename: the window a kill could leave it in is a few system calls.
      const std::string self = fmt::format("/proc/self/fd/{}", file.fd);
      for (int attempt = 0; named.empty(); ++attempt) {
        std::filesystem::path candidate = temporary_name(target);
        if (::linkat(AT_FDCWD, self.c_str(), AT_FDCWD, candidate.c_str(), AT_SYMLINK_FOLLOW) == 0) {
          named = std::move(candidate);
        } else if (errno != EEXIST || attempt > 100) {
          KBENCH_THROW("cannot name the new {}: {}", target.string(), std::strerror(errno));
        }
      }
    }
    if (std::rename(named.c_str(), target.c_str()) != 0) {
      KBENCH_THROW("cannot replace {}: {}", target.string(), std::strerror(errno));
    }
    named.clear();
  } catch (...) {
    if (!named.empty()) ::unlink(named.c_str());
    throw;
  }
  fsync_directory(dir);
}

}  // namespace kbench::io
