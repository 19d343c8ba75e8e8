#pragma once
// What kbench does with a file it must replace but cannot parse (a corrupt tuning-cache entry, a corrupt
// calibration cache): it never overwrites or deletes it, since it may hold the only copy of hours of work,
// but renames it to <name>.corrupt-<seconds since the Unix epoch>[-n] beside itself, for a person to look at;
// a rename never replaces an earlier aside.

#include <filesystem>
#include <string>

namespace kbench::io {

/// Renames `path` to `<path>.corrupt-<time>`; returns what happened, for a message ("kept as NAME", or
/// "could not move it aside (REASON)").
std::string move_aside(const std::filesystem::path& path);

}  // namespace kbench::io
