#include <kbench/config.hpp>
#include <kbench/error.hpp>
#include <kbench/suite/worker_request.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <optional>
#include <utility>

namespace kbench::suite {

namespace {

using json = nlohmann::json;

constexpr std::array<worker_task, 4> all_tasks{worker_task::shape, worker_task::trial, worker_task::trials,
                                               worker_task::baseline_settings};

constexpr std::array<std::string_view, 17> known_fields{
    "task",         "kernel",       "definition_file", "shape_index",     "backend",   "seed",
    "atol",         "rtol",         "run_kbench",      "run_torch",       "target_ms", "config",
    "torch_config", "triad_stores", "triad_min_bytes", "require_quiet_s", "trial"};

json optional_config(const std::optional<config>& c) {
  return c ? json::parse(to_json_text(*c)) : json(nullptr);
}

std::optional<config> config_of(const json& j) {
  if (j.is_null()) return std::nullopt;
  return parse_config_text(j.dump());
}

worker_task parse_task(const std::string& name) {
  for (worker_task t : all_tasks) {
    if (to_string(t) == name) return t;
  }
  throw usage_error(
      fmt::format("unknown worker task '{}' (valid: shape, trial, trials, baseline-settings)", name));
}

}  // namespace

std::string_view to_string(worker_task task) {
  switch (task) {
    case worker_task::shape:
      return "shape";
    case worker_task::trial:
      return "trial";
    case worker_task::trials:
      return "trials";
    case worker_task::baseline_settings:
      return "baseline-settings";
  }
  return "?";
}

worker_request make_worker_request(worker_task task, const kernel_definition& kernel,
                                   std::size_t shape_index) {
  worker_request request;
  request.task = task;
  request.kernel = kernel.name;
  request.definition_file = kernel.definition_file;
  request.shape_index = shape_index;
  return request;
}

std::string to_message(const worker_request& request) {
  const shape_options& s = request.shape;
  json j = {{"task", std::string(to_string(request.task))},
            {"kernel", request.kernel},
            {"shape_index", request.shape_index},
            {"backend", std::string(kbench::to_string(s.backend))},
            {"seed", s.seed},
            {"atol", s.atol ? json(*s.atol) : json(nullptr)},
            {"rtol", s.rtol ? json(*s.rtol) : json(nullptr)},
            {"run_kbench", s.run_kbench},
            {"run_torch", s.run_torch},
            {"target_ms", s.target_ms},
            {"config", optional_config(s.config)},
            {"torch_config", optional_config(s.torch_config)},
            {"triad_stores", s.triad_stores ? json(*s.triad_stores) : json(nullptr)},
            {"triad_min_bytes", s.triad_min_bytes},
            {"require_quiet_s", s.require_quiet_s}};
  if (!request.definition_file.empty()) j["definition_file"] = request.definition_file;
  if (!request.trial.empty()) j["trial"] = json::parse(request.trial);
  return j.dump();
}

worker_request parse_worker_request(std::string_view message) {
  worker_request request;
  json j;
  try {
    j = json::parse(message);
  } catch (const json::exception& e) {
    throw usage_error(fmt::format("a worker's request is one JSON object, not '{}' ({})", message, e.what()));
  }
  if (!j.is_object()) throw usage_error(fmt::format("a worker's request is a JSON object, not {}", j.dump()));
  for (const auto& [key, value] : j.items()) {
    if (std::find(known_fields.begin(), known_fields.end(), key) == known_fields.end()) {
      throw usage_error(fmt::format("unknown field '{}' in a worker's request (valid: {})", key,
                                    fmt::join(known_fields, ", ")));
    }
  }
  try {
    request.task = parse_task(j.value("task", std::string("shape")));
    request.kernel = j.at("kernel").get<std::string>();
    request.definition_file = j.value("definition_file", std::string());
    request.shape_index = j.value("shape_index", std::size_t{0});
    shape_options& s = request.shape;
    s.backend = parse_backend_kind(j.value("backend", std::string("cpu")));
    s.seed = j.value("seed", std::uint64_t{0});
    if (j.contains("atol") && !j["atol"].is_null()) s.atol = j["atol"].get<double>();
    if (j.contains("rtol") && !j["rtol"].is_null()) s.rtol = j["rtol"].get<double>();
    s.run_kbench = j.value("run_kbench", true);
    s.run_torch = j.value("run_torch", true);
    s.target_ms = j.value("target_ms", s.target_ms);
    s.config = config_of(j.value("config", json(nullptr)));
    s.torch_config = config_of(j.value("torch_config", json(nullptr)));
    if (j.contains("triad_stores") && !j["triad_stores"].is_null()) {
      s.triad_stores = j["triad_stores"].get<std::string>();
    }
    s.triad_min_bytes = j.value("triad_min_bytes", 0.0);
    s.require_quiet_s = j.value("require_quiet_s", 0.0);
    if (j.contains("trial")) request.trial = j["trial"].dump();
  } catch (const json::exception& e) {
    throw usage_error(fmt::format("malformed worker request ({}): {}", e.what(), j.dump()));
  }
  for (const auto& [name, value] :
       {std::pair{"atol", request.shape.atol}, std::pair{"rtol", request.shape.rtol}}) {
    if (value && !(*value >= 0))
      throw usage_error(fmt::format("{} must be a non-negative number, got {}", name, *value));
  }
  return request;
}

}  // namespace kbench::suite
