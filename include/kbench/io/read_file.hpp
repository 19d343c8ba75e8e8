#pragma once
// Reading a file from outside (results, caches, spec files) whole, with a bound: a wrong path such as
// /dev/zero or a runaway log gets a clear error instead of filling the memory.

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace kbench::io {

inline constexpr std::uintmax_t max_records_bytes = std::uintmax_t{512} << 20;  // [bytes] results, KT caches
inline constexpr std::uintmax_t max_small_file_bytes = std::uintmax_t{16} << 20;  // [bytes] caches, specs

/// The bytes of `path`. Throws usage_error (exit status 2) naming `what` ("results file") and the path when
/// it cannot be opened or read, is a directory, or holds more than `max_bytes` (read up to one byte past
/// it, so that a device or a pipe with no end is refused too).
[[nodiscard]] std::string read_file(const std::filesystem::path& path, std::uintmax_t max_bytes,
                                    std::string_view what);

}  // namespace kbench::io
