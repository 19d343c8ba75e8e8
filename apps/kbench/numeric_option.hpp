#pragma once
// Ranges for numeric options: every number typed on the command line is checked when it is parsed (exit
// status 2, naming the range), NaN and infinities included: CLI::Range lets NaN through, since every
// comparison with it is false, and a NaN budget reached std::clamp and a cast to int before this.

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdlib>
#include <string>

namespace kbench::cli {

/// A finite number in [low, high]; with `whole`, also a whole number (for integer options, whose negative
/// values would otherwise wrap around in an unsigned one).
inline CLI::Validator number_in(double low, double high, bool whole = false) {
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        char* end = nullptr;
        const double value = std::strtod(text.c_str(), &end);
        if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(value))
          return fmt::format("'{}' is not a finite number (valid: {:.15g} to {:.15g})", text, low, high);
        if (whole && value != std::floor(value))
          return fmt::format("'{}' is not a whole number (valid: {:.15g} to {:.15g})", text, low, high);
        if (value < low || value > high)
          return fmt::format("{} is out of range (valid: {:.15g} to {:.15g})", text, low, high);
        return {};
      },
      fmt::format("{}:[{:.15g}, {:.15g}]", whole ? "INT" : "NUMBER", low, high));
}

/// A whole number in [low, high].
inline CLI::Validator count_in(double low, double high) {
  return number_in(low, high, true);
}

/// Any seed: a whole number from 0 to 2^64 - 1.
inline CLI::Validator any_seed() {
  return count_in(0, 18446744073709551615.0);
}

}  // namespace kbench::cli
