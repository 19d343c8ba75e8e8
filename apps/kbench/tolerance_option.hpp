#pragma once
// Parsing of numeric command-line values that must be rejected with exit status 2 when malformed.

#include <kbench/error.hpp>

#include <fmt/format.h>

#include <charconv>
#include <optional>
#include <string>

namespace kbench::cli {

/// Empty text: nullopt. Otherwise a finite non-negative number, or usage_error naming the option.
inline std::optional<double> parse_tolerance(const std::string& option, const std::string& text) {
  if (text.empty()) return std::nullopt;
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size() || !(value >= 0) || value > 1e30) {
    throw usage_error(fmt::format("{} must be a non-negative number, got '{}'", option, text));
  }
  return value;
}

}  // namespace kbench::cli
