#pragma once
// The worker end of the suite's process protocol. `kbench run` times every kernel x shape, and tuning runs
// every trial, in a fresh process of the same program (suite.hpp, tune_shape.hpp start `argv[0] worker
// MESSAGE`, the message a worker_request as JSON); this is what such a process runs. A program that runs the
// suite or tunes with this library calls worker_main first thing in main.
//
// **Example**:
//   int main(int argc, char** argv) {
//     if (const auto status = kbench::suite::worker_main(argc, argv)) return *status;
//     ...
//   }

#include <functional>
#include <optional>
#include <string>

namespace kbench::suite {

/// When argv[1] is "worker": parses its request (argv[2], worker_request.hpp), runs one kernel x shape (its
/// result as one JSON line on standard output), one tuning trial, the trials read from standard input, or
/// the baseline's settings, and returns the exit status (2 for a bad request, 1 for an error). Otherwise
/// nullopt: not a worker. `load_definition_file` loads the request's spec file
/// (kernel_definition::definition_file) before the kernel is looked up; without it such a worker fails.
[[nodiscard]] std::optional<int> worker_main(
    int argc, char** argv, const std::function<void(const std::string&)>& load_definition_file = {});

}  // namespace kbench::suite
