// v3 result files -> runs and points (see records.hpp).

#include <kbench/error.hpp>
#include <kbench/history/records.hpp>
#include <kbench/io/json_v3.hpp>
#include <kbench/io/read_file.hpp>
#include <kbench/stats.hpp>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <tuple>

namespace kbench::history {
namespace {

/// `object[key]` as a string when it is one; numbers are printed, anything else gives "".
std::string text_field(const nlohmann::json& object, const char* key) {
  if (!object.is_object()) return {};
  const auto it = object.find(key);
  if (it == object.end()) return {};
  if (it->is_string()) return it->get<std::string>();
  if (it->is_number()) return it->dump();
  return {};
}

const nlohmann::json& member(const nlohmann::json& object, const char* key) {
  static const nlohmann::json none = nlohmann::json::object();
  if (!object.is_object()) return none;
  const auto it = object.find(key);
  return it == object.end() ? none : *it;
}

const nlohmann::json& first_runner(const nlohmann::json& record) {
  static const nlohmann::json none = nlohmann::json::object();
  const auto& runners = member(record, "runners");
  return runners.is_array() && !runners.empty() ? runners[0] : none;
}

}  // namespace

nlohmann::json read_results_file(const std::filesystem::path& path) {
  return parse_results(io::read_file(path, io::max_records_bytes, "results file"), path.string());
}

nlohmann::json parse_results(const std::string& text, const std::string& origin) {
  nlohmann::json doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded())
    throw usage_error(fmt::format("{} is not JSON (expected a list of v3 records)", origin));
  if (std::string why = io::validate_records(doc); !why.empty()) {
    throw usage_error(fmt::format("{} is not a list of v3 records: {}", origin, why));
  }
  for (const auto& record : doc) {
    (void)values_of(record);  // rejects non-numeric samples before anything is stored
  }
  return doc;
}

series_key key_of(const nlohmann::json& record) {
  const auto& runner = first_runner(record);
  const auto& extra = member(member(record, "benchmark"), "extra_info");
  // The backend the runner measured on: runners[0].extra_info.backend; records written before runners
  // followed the hub's meaning (name = the runner) had it as runners[0].name.
  std::string runner_backend = text_field(member(runner, "extra_info"), "backend");
  if (runner_backend.empty()) runner_backend = text_field(runner, "name");
  return {runner_backend,
          text_field(runner, "type"),
          text_field(extra, "backend"),
          text_field(member(record, "model"), "name"),
          text_field(extra, "shape"),
          text_field(member(record, "model"), "backend"),
          text_field(member(record, "metric"), "name")};
}

std::vector<double> values_of(const nlohmann::json& record) {
  const auto& values = member(member(record, "metric"), "benchmark_values");
  std::vector<double> out;
  if (!values.is_array()) return out;
  out.reserve(values.size());
  for (const auto& v : values) {
    if (!v.is_number() || !std::isfinite(v.get<double>())) {
      const series_key key = key_of(record);
      throw usage_error(fmt::format("record {} {} {} {}: benchmark_values holds {}, not a finite number",
                                    key.kernel, key.shape, key.implementation, key.metric, v.dump()));
    }
    out.push_back(v.get<double>());
  }
  return out;
}

std::vector<run_records> runs_from_records(const nlohmann::json& records, const std::string& commit) {
  // (timestamp, host) -> the run's info and its points by key; std::map keeps runs oldest first.
  std::map<std::pair<std::int64_t, std::string>, std::pair<run_info, std::map<series_key, point>>> runs;
  for (const auto& record : records) {
    std::vector<double> samples = values_of(record);
    if (samples.empty()) continue;
    const auto& stamp = member(record, "timestamp");
    const std::int64_t timestamp = stamp.is_number() ? stamp.get<std::int64_t>() : 0;
    const std::string host = text_field(member(first_runner(record), "extra_info"), "hostname");
    auto& [info, points] = runs[{timestamp, host}];
    info.timestamp = timestamp;
    info.host = host;
    const auto& extra = member(member(record, "benchmark"), "extra_info");
    info.commit = commit.empty() ? text_field(extra, "commit") : commit;
    if (info.version.empty()) info.version = text_field(extra, "kbench_version");
    point p;
    p.series = key_of(record);
    p.median = quantile(samples, 0.5);
    p.samples = std::move(samples);
    points[p.series] = std::move(p);
  }
  std::vector<run_records> out;
  out.reserve(runs.size());
  for (auto& [when, run] : runs) {
    run_records r;
    r.run = std::move(run.first);
    for (auto& [key, p] : run.second) r.points.push_back(std::move(p));
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace kbench::history
