#include <kbench/error.hpp>
#include <kbench/io/atomic_file.hpp>
#include <kbench/io/replaceable_file.hpp>

#include <fmt/format.h>

#include <fstream>
#include <string>

namespace kbench::io {

namespace {
constexpr std::size_t signature_window = 64 * 1024;  // [bytes] where a signature must appear
}  // namespace

void check_replaceable(const std::filesystem::path& path, std::string_view signature, std::string_view what) {
  check_writable(path, what);
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (status.type() == std::filesystem::file_type::not_found) return;
  if (status.type() != std::filesystem::file_type::regular) {
    throw usage_error(
        fmt::format("cannot write {} {}: it exists and is not a regular file", what, path.string()));
  }
  std::ifstream in(path, std::ios::binary);
  std::string head(signature_window, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(in.gcount()));
  if (head.find(signature) == std::string::npos) {
    throw usage_error(fmt::format(
        "{} exists and was not written by kbench (no \"{}\" in it); kbench does not overwrite it: choose "
        "another path for {}",
        path.string(), signature, what));
  }
}

}  // namespace kbench::io
