#pragma once
// Files kbench writes (results, caches, reports) are replaced atomically, so that a crash or a signal never
// leaves one half-written, and never leaves a temporary file behind but for the instant between naming the
// finished file and renaming it into place.

#include <filesystem>
#include <string>
#include <string_view>

namespace kbench::io {

/// Writes `text` to `path` atomically: an unnamed file in the same directory (O_TMPFILE; a named
/// temporary where the file system lacks it), fsync, named and renamed over `path`, then the directory
/// fsynced so that the rename survives a power cut. An existing file keeps its permission bits (a 0600
/// results file stays private); a new one gets 0666 less the umask. A symbolic link is written through:
/// the file it points to is replaced, the link stays. Throws kbench::error saying what failed.
void write_file_atomically(const std::filesystem::path& path, const std::string& text);

/// Returns when write_file_atomically(path) can write now: its directory exists and takes a new file (tried
/// with an unnamed file that leaves no trace), and `path` is absent or a writable regular file. Otherwise
/// throws usage_error (exit status 2) naming `what` ("the results file") and the reason; what a command
/// checks before it measures anything, so that no run's results are lost to a typo in a path.
void check_writable(const std::filesystem::path& path, std::string_view what);

}  // namespace kbench::io
