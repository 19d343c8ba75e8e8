#include <kbench/config.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace kbench {

std::string to_json_text(const config& values) {
  nlohmann::json object = nlohmann::json::object();
  for (const auto& [name, value] : values) object[name] = value;
  return object.dump();
}

std::string to_define_flags(const config& values) {
  std::string flags;
  for (const auto& [name, value] : values) {
    if (!flags.empty()) flags += ' ';
    flags += fmt::format("-D{}={}", name, value);
  }
  return flags;
}

}  // namespace kbench
