#include <kbench/error.hpp>
#include <kbench/suite/detail/trial_messages.hpp>

#include <fmt/format.h>

namespace kbench::suite {

using json = nlohmann::json;

std::string_view to_string(trial_phase phase) {
  switch (phase) {
    case trial_phase::compile:
      return "compile";
    case trial_phase::time:
      return "time";
    case trial_phase::retime:
      return "retime";
  }
  return "?";
}

trial_phase parse_trial_phase(std::string_view name) {
  for (trial_phase p : {trial_phase::compile, trial_phase::time, trial_phase::retime}) {
    if (to_string(p) == name) return p;
  }
  throw usage_error(fmt::format("unknown trial phase '{}' (valid: compile, time, retime)", name));
}

void to_json(json& j, const trial_outcome& t) {
  j = {{"config", json::parse(to_json_text(t.values))},
       {"status", std::string(tune::to_string(t.status))},
       {"time_ms", t.time_ms},
       {"retime_ms", t.retime_ms},
       {"time_ci_low_ms", t.time_ci_low_ms},
       {"time_ci_high_ms", t.time_ci_high_ms},
       {"samples", t.samples},
       {"build_s", t.build_s},
       {"message", t.message}};
}

void from_json(const json& j, trial_outcome& t) {
  t.values = parse_config_text(j.at("config").dump());
  t.status = tune::parse_eval_status(j.at("status").get<std::string>());
  t.time_ms = j.at("time_ms").get<double>();
  t.retime_ms = j.value("retime_ms", 0.0);
  t.time_ci_low_ms = j.value("time_ci_low_ms", 0.0);
  t.time_ci_high_ms = j.value("time_ci_high_ms", 0.0);
  t.samples = j.at("samples").get<std::size_t>();
  t.build_s = j.at("build_s").get<double>();
  t.message = j.at("message").get<std::string>();
}

std::string to_request_line(const trial_request& request) {
  json configs = json::array();
  for (const config& c : request.configs) configs.push_back(json::parse(to_json_text(c)));
  return json{{"phase", std::string(to_string(request.phase))},
              {"configs", configs},
              {"target_ms", request.target_ms},
              {"incumbent_ms", request.incumbent_ms},
              {"retime_within", request.retime_within},
              {"give_up_above", request.give_up_above},
              {"time_limit_s", request.time_limit_s}}
      .dump();
}

trial_request parse_request_line(const std::string& line, backend_kind backend, std::uint64_t seed) {
  trial_request request;
  request.backend = backend;
  request.seed = seed;
  try {
    const json j = json::parse(line);
    request.phase = parse_trial_phase(j.at("phase").get<std::string>());
    for (const json& c : j.at("configs")) request.configs.push_back(parse_config_text(c.dump()));
    request.target_ms = j.at("target_ms").get<double>();
    request.incumbent_ms = j.value("incumbent_ms", 0.0);
    request.retime_within = j.value("retime_within", 1.5);
    request.give_up_above = j.value("give_up_above", 2.0);
    request.time_limit_s = j.value("time_limit_s", 0.0);
  } catch (const json::exception& e) {
    throw usage_error(fmt::format("malformed trial request ({}): {}", e.what(), line));
  }
  return request;
}

}  // namespace kbench::suite
