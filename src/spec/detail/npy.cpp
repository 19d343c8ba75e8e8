#include "spec/detail/npy.hpp"

#include <kbench/error.hpp>

#include <fmt/format.h>
#include <fmt/std.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <regex>
#include <string>

namespace kbench::spec::detail {

namespace {

constexpr std::size_t max_npy_bytes = std::size_t{1} << 34;  // [bytes] 16 GiB: a larger file is refused

[[noreturn]] void malformed(const std::filesystem::path& file, std::string_view what) {
  throw usage_error(fmt::format("{}: not a .npy file kbench reads: {}", file.string(), what));
}

std::uint64_t little_endian(const unsigned char* bytes, std::size_t count) {
  std::uint64_t value = 0;
  for (std::size_t i = count; i-- > 0;) value = (value << 8) | bytes[i];
  return value;
}

}  // namespace

host_tensor read_npy(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw usage_error(fmt::format("{}: cannot open the .npy file", file.string()));
  std::error_code size_error;
  const auto file_bytes = std::filesystem::file_size(file, size_error);
  if (size_error || file_bytes > max_npy_bytes) malformed(file, "not a regular file of at most 16 GiB");
  unsigned char prefix[12] = {};
  in.read(reinterpret_cast<char*>(prefix), 10);
  if (!in || std::memcmp(prefix, "\x93NUMPY", 6) != 0) malformed(file, "no \\x93NUMPY magic");
  const unsigned major = prefix[6];
  std::size_t header_bytes = 0;
  if (major == 1) {
    header_bytes = little_endian(prefix + 8, 2);
  } else if (major == 2 || major == 3) {
    in.read(reinterpret_cast<char*>(prefix + 10), 2);
    header_bytes = little_endian(prefix + 8, 4);
  } else {
    malformed(file, fmt::format("format version {} (valid: 1, 2, 3)", major));
  }
  if (header_bytes > 65536) malformed(file, "a header longer than 64 KiB");
  std::string header(header_bytes, '\0');
  in.read(header.data(), static_cast<std::streamsize>(header_bytes));
  if (!in) malformed(file, "the header is cut short");

  std::smatch match;
  if (!std::regex_search(header, match, std::regex(R"('descr'\s*:\s*'([^']*)')")))
    malformed(file, "no 'descr'");
  const std::string descr = match[1];
  if (descr != "<f4" && descr != "<f8") {
    malformed(file, fmt::format("dtype '{}' (valid: '<f4' float32, '<f8' float64)", descr));
  }
  if (std::regex_search(header, std::regex(R"('fortran_order'\s*:\s*True)")))
    malformed(file, "Fortran order");
  if (!std::regex_search(header, match, std::regex(R"('shape'\s*:\s*\(([^)]*)\))")))
    malformed(file, "no 'shape'");
  kbench::shape dims;
  const std::string shape_text = match[1];
  const std::regex digits(R"(\d+)");
  for (auto it = std::sregex_iterator(shape_text.begin(), shape_text.end(), digits);
       it != std::sregex_iterator(); ++it) {
    dims.push_back(std::stoll(it->str()));
  }
  const std::size_t element_bytes = descr == "<f4" ? 4 : 8;
  const auto count = static_cast<std::size_t>(element_count(dims));
  if (count > max_npy_bytes / element_bytes) malformed(file, "an array larger than 16 GiB");
  std::string raw(count * element_bytes, '\0');
  in.read(raw.data(), static_cast<std::streamsize>(raw.size()));
  if (!in) malformed(file, fmt::format("the data is cut short (expected {} values)", count));
  host_tensor tensor(dims);
  if (element_bytes == 4) {
    std::memcpy(tensor.values.data(), raw.data(), raw.size());
  } else {
    for (std::size_t i = 0; i < count; ++i) {
      double value = 0;
      std::memcpy(&value, raw.data() + i * 8, 8);
      tensor.values[i] = static_cast<float>(value);
    }
  }
  return tensor;
}

}  // namespace kbench::spec::detail
