#include <kbench/error.hpp>
#include <kbench/tune/evaluation.hpp>

#include <fmt/format.h>

#include <array>
#include <utility>

namespace kbench::tune {

namespace {
constexpr std::array<std::pair<eval_status, std::string_view>, 6> names{{
    {eval_status::ok, "ok"},
    {eval_status::compile_error, "compile_error"},
    {eval_status::runtime_error, "runtime_error"},
    {eval_status::timeout, "timeout"},
    {eval_status::wrong_result, "wrong_result"},
    {eval_status::invalid_config, "invalid_config"},
}};
}  // namespace

std::string_view to_string(eval_status status) {
  for (const auto& [s, name] : names) {
    if (s == status) return name;
  }
  return "?";
}

eval_status parse_eval_status(std::string_view name) {
  for (const auto& [s, n] : names) {
    if (n == name) return s;
  }
  throw usage_error(fmt::format(
      "unknown evaluation status '{}' (valid: ok, compile_error, runtime_error, timeout, wrong_result, "
      "invalid_config)",
      name));
}

}  // namespace kbench::tune
