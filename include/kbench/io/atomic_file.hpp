#pragma once
// Files kbench writes (results, caches, reports) are replaced atomically, so that a crash or a signal never
// leaves one half-written.

#include <filesystem>
#include <string>

namespace kbench::io {

/// Writes `text` to `path` atomically (temporary file in the same directory + fsync + rename).
void write_file_atomically(const std::filesystem::path& path, const std::string& text);

}  // namespace kbench::io
