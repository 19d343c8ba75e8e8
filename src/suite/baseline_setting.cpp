#include <kbench/suite/baseline_setting.hpp>

#include <fmt/format.h>

#include <algorithm>

namespace kbench::suite {

int baseline_threads(const config& values) {
  const auto it = values.find(baseline_threads_key);
  return it == values.end() ? 0 : static_cast<int>(std::max<std::int64_t>(1, it->second));
}

config baseline_setting::binding_config() const {
  if (threads <= 0) return {};
  return {{baseline_threads_key, threads}};
}

std::string baseline_setting::environment() const {
  return fmt::format("GOMP_SPINCOUNT={}", spin);
}

std::string baseline_setting::describe() const {
  if (threads <= 0) return "libtorch's defaults";
  return fmt::format("{} thread{}, spin {}", threads, threads == 1 ? "" : "s", spin);
}

void to_json(nlohmann::json& j, const baseline_candidate& c) {
  j = {{"threads", c.threads},
       {"spin", c.spin},
       {"ok", c.ok},
       {"median_ms", c.median_ms},
       {"spread", c.spread}};
  if (!c.message.empty()) j["message"] = c.message;
}

void from_json(const nlohmann::json& j, baseline_candidate& c) {
  c.threads = j.at("threads").get<std::int64_t>();
  c.spin = j.value("spin", std::int64_t{0});
  c.ok = j.at("ok").get<bool>();
  c.median_ms = j.at("median_ms").get<double>();
  c.spread = j.value("spread", 0.0);
  c.message = j.value("message", std::string());
}

void to_json(nlohmann::json& j, const baseline_setting& s) {
  j = {{"threads", s.threads}, {"spin", s.spin},         {"median_ms", s.median_ms},
       {"source", s.source},   {"tuning_s", s.tuning_s}, {"candidates", s.candidates}};
  if (!s.warnings.empty()) j["warnings"] = s.warnings;
}

void from_json(const nlohmann::json& j, baseline_setting& s) {
  s.threads = j.at("threads").get<std::int64_t>();
  s.spin = j.at("spin").get<std::int64_t>();
  s.median_ms = j.value("median_ms", 0.0);
  s.source = j.value("source", std::string());
  s.tuning_s = j.value("tuning_s", 0.0);
  s.candidates = j.value("candidates", std::vector<baseline_candidate>{});
  s.warnings = j.value("warnings", std::vector<std::string>{});
}

}  // namespace kbench::suite
