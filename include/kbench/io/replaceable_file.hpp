#pragma once
// The rule for the files kbench writes whole (a regressions report, an HTML report): a file kbench did not
// write is never overwritten. kbench marks each such file with a signature (a "generator" field, a meta
// tag); an existing file without it is refused before any work is done.

#include <filesystem>
#include <string_view>

namespace kbench::io {

/// Returns when `path` may be written: it does not exist, or it is a regular file whose first 64 KiB hold
/// `signature`. Otherwise throws usage_error (exit status 2) saying what it is and that kbench leaves it;
/// also when its directory does not exist. `what` names the file in the message ("the HTML report").
void check_replaceable(const std::filesystem::path& path, std::string_view signature, std::string_view what);

}  // namespace kbench::io
