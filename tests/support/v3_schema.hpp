#pragma once
// Checks a record against the PyTorch hub's oss_ci_benchmark_v3 table (tests/data/v3-schema): every field
// present, no other, each of the type the table gives.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace kbench::test {

inline nlohmann::json v3_schema() {
  std::ifstream in(std::filesystem::path(__FILE__).parent_path().parent_path() / "data" / "v3-schema" /
                   "oss_ci_benchmark_v3.json");
  return nlohmann::json::parse(in).at("fields");
}

namespace detail {

inline bool fits_unsigned(const nlohmann::json& v, std::uint64_t max) {
  if (v.is_number_unsigned()) return v.get<std::uint64_t>() <= max;
  return v.is_number_integer() && v.get<std::int64_t>() >= 0 &&
         static_cast<std::uint64_t>(v.get<std::int64_t>()) <= max;
}

inline void check(const nlohmann::json& value, const nlohmann::json& type, const std::string& path,
                  std::vector<std::string>& errors) {
  auto fail = [&](const std::string& why) { errors.push_back(path + ": " + why + ", got " + value.dump()); };
  if (type.is_string()) {
    const std::string t = type.get<std::string>();
    if (t == "String") {
      if (!value.is_string()) fail("not a String");
    } else if (t == "UInt64") {
      if (!fits_unsigned(value, UINT64_MAX)) fail("not a UInt64");
    } else if (t == "UInt32") {
      if (!fits_unsigned(value, UINT32_MAX)) fail("not a UInt32");
    } else if (t == "Float32") {
      if (!value.is_number()) fail("not a Float32");
    } else if (t == "Array(String)" || t == "Array(Float32)") {
      if (!value.is_array()) return fail("not an Array");
      for (std::size_t i = 0; i < value.size(); ++i) {
        check(value[i], t == "Array(String)" ? "String" : "Float32", path + "[" + std::to_string(i) + "]",
              errors);
      }
    } else if (t == "Map(String, String)") {
      if (!value.is_object()) return fail("not a Map");
      for (const auto& [k, v] : value.items()) check(v, "String", path + "." + k, errors);
    } else {
      fail("unknown type " + t + " in the schema");
    }
    return;
  }
  if (type.contains("Array")) {
    if (!value.is_array()) return fail("not an Array");
    for (std::size_t i = 0; i < value.size(); ++i)
      check(value[i], type.at("Array"), path + "[" + std::to_string(i) + "]", errors);
    return;
  }
  if (type.contains("Map")) {
    if (!value.is_object()) return fail("not a Map");
    for (const auto& [k, v] : value.items()) check(v, type.at("Map"), path + "." + k, errors);
    return;
  }
  if (!value.is_object()) return fail("not a Tuple");
  for (const auto& [field, field_type] : type.items()) {
    if (!value.contains(field)) {
      errors.push_back(path + "." + field + ": missing");
      continue;
    }
    check(value.at(field), field_type, path + "." + field, errors);
  }
  for (const auto& [field, v] : value.items()) {
    if (!type.contains(field)) errors.push_back(path + "." + field + ": not in the schema");
  }
}

}  // namespace detail

/// A number of an extra_info map (the hub's maps hold strings: the number's JSON text).
inline double extra_number(const nlohmann::json& extra, const std::string& key) {
  return std::stod(extra.at(key).get<std::string>());
}

/// What does not conform in `record` (empty: it conforms).
inline std::vector<std::string> v3_schema_errors(const nlohmann::json& record) {
  std::vector<std::string> errors;
  detail::check(record, v3_schema(), "record", errors);
  return errors;
}

}  // namespace kbench::test
