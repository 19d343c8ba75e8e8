#pragma once
// What a `kbench worker` process is asked to do, as one structured message: the JSON text that follows
// "worker" on its command line (`kbench worker '{"task":"shape","kernel":"exp",...}'`). The suite, the tuner
// and the baseline tuning build one; worker_main parses it once, and refuses a field it does not know.

#include <kbench/suite/run_shape.hpp>

#include <cstddef>
#include <string>
#include <string_view>

namespace kbench::suite {

enum class worker_task {
  shape,              // one kernel x shape (run_shape): its shape_result as the last line of output
  trial,              // one tuning trial (config_trial.hpp): its outcomes as the last line
  trials,             // serve the tuning trials read from standard input, one JSON line each
  baseline_settings,  // the torch baseline's thread counts (baseline_tuning.hpp)
};
[[nodiscard]] std::string_view to_string(worker_task task);

struct worker_request {
  worker_task task = worker_task::shape;
  std::string kernel;
  std::string definition_file;  // the spec file that defines the kernel; empty: a built-in kernel
  std::size_t shape_index = 0;
  shape_options shape;  // backend and seed for every task; the rest for a shape (target_ms also for
                        // baseline_settings)
  std::string trial;    // task trial: the trial request, as a serving worker reads it (one JSON line)
};

/// A request of `task` for a kernel x shape, its options at their defaults.
[[nodiscard]] worker_request make_worker_request(worker_task task, const kernel_definition& kernel,
                                                 std::size_t shape_index);

/// The message as JSON text (one line).
[[nodiscard]] std::string to_message(const worker_request& request);
/// Throws usage_error naming what is wrong: not JSON, an unknown field or task, a value of the wrong type.
[[nodiscard]] worker_request parse_worker_request(std::string_view message);

}  // namespace kbench::suite
