#include <kbench/error.hpp>
#include <kbench/io/atomic_file.hpp>
#include <kbench/io/read_file.hpp>
#include <kbench/tune/kernel_tuner_cache.hpp>

#include <fmt/format.h>

#include <cctype>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

namespace kbench::tune {

namespace {

using json = nlohmann::json;

/// A parameter value as Kernel Tuner holds it: an enumeration's label, otherwise the integer.
json value_of(const parameter& p, std::int64_t value) {
  if (p.kind() == parameter_kind::enumeration) return p.labels().at(static_cast<std::size_t>(value));
  return value;
}

/// Kernel Tuner's name for a failed config (its util.py ErrorConfig classes).
const char* failure_name(eval_status status) {
  switch (status) {
    case eval_status::compile_error:
      return "CompilationFailedConfig";
    case eval_status::invalid_config:
      return "InvalidConfig";
    default:  // runtime error, timeout, wrong result: the config ran and failed
      return "RuntimeFailedConfig";
  }
}

/// The cache in `path`, or nullopt when there is none. Kernel Tuner leaves a cache open while it tunes
/// (no closing "}\n}", a trailing comma); such a file is read as Kernel Tuner reads it, closed.
std::optional<json> read_existing(const std::filesystem::path& path) {
  std::error_code ignored;
  if (!std::filesystem::exists(path, ignored)) return std::nullopt;
  if (!std::filesystem::is_regular_file(path)) {
    throw usage_error(fmt::format("{}: not a file; --kt-cache needs a file to write", path.string()));
  }
  std::string text = io::read_file(path, io::max_records_bytes, "Kernel Tuner cache");
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() && !text.empty()) {
    if (text.back() == ',') text.pop_back();
    text.append("}\n}");
    doc = json::parse(text, nullptr, false);
  }
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("cache") || !doc["cache"].is_object() ||
      !doc.contains("tune_params_keys")) {
    throw usage_error(fmt::format(
        "{}: exists and is not a Kernel Tuner cache file; kbench does not overwrite it (choose another path)",
        path.string()));
  }
  return doc;
}

/// Why the existing cache `existing` cannot take entries of `document` (empty: it can).
std::string mismatch(const json& existing, const json& document) {
  for (const char* field : {"kernel_name", "device_name", "problem_size", "tune_params_keys"}) {
    if (existing.value(field, json()) != document[field]) {
      return fmt::format("its {} is {}, this kernel's {}", field, existing.value(field, json()).dump(),
                         document[field].dump());
    }
  }
  return {};
}

void refuse_mismatch(const std::filesystem::path& path, const json& existing, const json& document) {
  if (const std::string why = mismatch(existing, document); !why.empty()) {
    throw usage_error(
        fmt::format("{}: a Kernel Tuner cache of another tuning problem ({}); kbench does not "
                    "overwrite it (choose another path)",
                    path.string(), why));
  }
}

json header_document(const kernel_tuner_header& header) {
  json doc;
  doc["device_name"] = header.device_name;
  doc["kernel_name"] = header.kernel_name;
  doc["problem_size"] = header.problem_size;
  json keys = json::array();
  json values = json::object();
  for (const parameter& p : header.parameters) {
    keys.push_back(p.name());
    json list = json::array();
    for (const std::int64_t value : p.values()) list.push_back(value_of(p, value));
    values[p.name()] = list;
  }
  doc["tune_params_keys"] = keys;
  doc["tune_params"] = values;
  doc["objective"] = "time";
  doc["cache"] = json::object();
  return doc;
}

/// The text of a cache as Kernel Tuner lays it out, which it needs to continue one: "cache" last, one entry
/// per line, so that the file reopens for appending by cutting its last three characters ("}\n}").
std::string kernel_tuner_text(const json& doc) {
  std::string text = "{\n";
  for (const char* field : {"device_name", "kernel_name", "problem_size", "tune_params_keys", "tune_params"})
    text += fmt::format("{}: {},\n", json(field).dump(), doc.value(field, json()).dump());
  for (const auto& [field, value] : doc.items()) {
    static const std::set<std::string> written{"device_name",      "kernel_name", "problem_size",
                                               "tune_params_keys", "tune_params", "cache"};
    if (written.count(field) == 0) text += fmt::format("{}: {},\n", json(field).dump(), value.dump());
  }
  text += "\"cache\": {";
  const char* separator = "";
  for (const auto& [key, entry] : doc["cache"].items()) {
    text += fmt::format("{}\n{}: {}", separator, json(key).dump(), entry.dump());
    separator = ",";
  }
  return text + "}\n}\n";
}

}  // namespace

json kernel_tuner_cache(const kernel_tuner_header& header, const std::vector<logged_evaluation>& log) {
  json doc = header_document(header);
  for (const logged_evaluation& e : log) {
    json entry = json::object();
    std::string key;
    for (const parameter& p : header.parameters) {
      const auto found = e.values.find(p.name());
      if (found == e.values.end()) {
        KBENCH_THROW("config {} has no value of parameter '{}'", to_json_text(e.values), p.name());
      }
      const json value = value_of(p, found->second);
      if (!key.empty()) key += ',';
      key += value.is_string() ? value.get<std::string>() : value.dump();
      entry[p.name()] = value;
    }
    if (e.status == eval_status::ok) {
      entry["time"] = e.time_ms;
    } else {
      entry["time"] = failure_name(e.status);
    }
    doc["cache"][key] = std::move(entry);
  }
  return doc;
}

void check_kernel_tuner_cache(const std::filesystem::path& path, const kernel_tuner_header& header) {
  const std::filesystem::path directory =
      path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  if (!std::filesystem::is_directory(directory)) {
    throw usage_error(fmt::format("{}: no such directory for --kt-cache", directory.string()));
  }
  if (const auto existing = read_existing(path)) refuse_mismatch(path, *existing, header_document(header));
}

std::size_t write_kernel_tuner_cache(const std::filesystem::path& path, const json& document) {
  json merged = document;
  if (const auto existing = read_existing(path)) {
    refuse_mismatch(path, *existing, document);
    merged["cache"] = (*existing)["cache"];
    for (const auto& [key, entry] : document["cache"].items()) merged["cache"][key] = entry;
  }
  io::write_file_atomically(path, kernel_tuner_text(merged));
  return merged["cache"].size();
}

}  // namespace kbench::tune
