#include <kbench/io/run_marks.hpp>

#include <array>
#include <utility>

namespace kbench::io {

namespace {
constexpr std::array<std::pair<std::string_view, double>, 4> verdict_codes{
    {{"faster", 1.0}, {"same", 0.0}, {"slower", -1.0}, {"unreliable", 2.0}}};
}  // namespace

bool is_mark_metric(std::string_view metric) {
  return metric == machine_disturbed_metric || metric == speedup_verdict_metric ||
         metric == served_from_cache_metric;
}

std::optional<double> verdict_code(std::string_view verdict) {
  for (const auto& [word, code] : verdict_codes) {
    if (word == verdict) return code;
  }
  return std::nullopt;
}

std::optional<std::string_view> verdict_of_code(double code) {
  for (const auto& [word, value] : verdict_codes) {
    if (value == code) return word;
  }
  return std::nullopt;
}

}  // namespace kbench::io
