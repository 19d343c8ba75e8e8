#pragma once
// The outcome of evaluating one config: a time, or a failure status and no time.

#include <kbench/tune/enumerated_space.hpp>

#include <limits>
#include <string_view>

namespace kbench::tune {

enum class eval_status {
  ok,              // timed; time_ms holds the time
  compile_error,   // the kernel did not build with this config
  runtime_error,   // launch failure, crash
  timeout,         // compile or run took longer than allowed
  wrong_result,    // output did not match the reference
  invalid_config,  // rejected by the device (resources, launch limits) though the constraints allowed it
};

[[nodiscard]] std::string_view to_string(eval_status status);
/// Parses the names to_string gives; throws usage_error otherwise.
[[nodiscard]] eval_status parse_eval_status(std::string_view name);

struct evaluation {
  config_id id = 0;
  eval_status status = eval_status::ok;
  double time_ms = std::numeric_limits<double>::quiet_NaN();  // [ms]; NaN unless status is ok

  [[nodiscard]] bool ok() const { return status == eval_status::ok; }
};

}  // namespace kbench::tune
