#pragma once
// Errors: exceptions for programmer and environment faults, carrying the failing call and where it failed;
// usage_error for bad command-line input (the tool exits with status 2 on it).

#include <fmt/format.h>

#include <stdexcept>
#include <string>

namespace kbench {

/// A fault in the environment or in kbench itself (a failed API call, a build failure, ...).
class error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Bad input from the user: an unknown name, a malformed value. The tool prints the message and exits with 2.
class usage_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

namespace detail {
[[noreturn]] void throw_error(const char* file, int line, const std::string& message);
}  // namespace detail

}  // namespace kbench

/// Throws kbench::error with a fmt-formatted message (followed by file:line when KBENCH_DEBUG=1).
/// **Example**: `KBENCH_THROW("clBuildProgram failed ({}): {}", code, log);`
#define KBENCH_THROW(...) ::kbench::detail::throw_error(__FILE__, __LINE__, ::fmt::format(__VA_ARGS__))
