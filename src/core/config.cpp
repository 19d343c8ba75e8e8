#include <kbench/config.hpp>
#include <kbench/error.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace kbench {

std::string to_json_text(const config& values) {
  nlohmann::json object = nlohmann::json::object();
  for (const auto& [name, value] : values) object[name] = value;
  return object.dump();
}

config parse_config_text(std::string_view json_text) {
  const nlohmann::json object = nlohmann::json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (!object.is_object()) {
    throw usage_error(
        fmt::format("config '{}' is not a JSON object of integers, e.g. {{\"BLOCK\":256}}", json_text));
  }
  config values;
  for (const auto& [name, value] : object.items()) {
    if (!value.is_number_integer()) {
      throw usage_error(fmt::format("config '{}': '{}' is not an integer", json_text, name));
    }
    values[name] = value.get<std::int64_t>();
  }
  return values;
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
