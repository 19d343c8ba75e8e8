#include <kbench/build_config.hpp>
#include <kbench/error.hpp>
#include <kbench/io/read_file.hpp>
#include <kbench/stats.hpp>
#include <kbench/tune/search.hpp>
#include <kbench/tune/simulate.hpp>
#include <kbench/tune/strategy.hpp>

#include <fmt/format.h>
#if KBENCH_HAS_ZLIB
#include <zlib.h>
#endif
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <mutex>
#include <thread>

namespace kbench::tune {

namespace {

using json = nlohmann::json;

[[noreturn]] void malformed(std::string_view source, const std::string& problem) {
  throw usage_error(
      fmt::format("{}: not a valid Kernel Tuner cache file or kbench config log: {}", source, problem));
}

// Reads a file, gunzipping it when it is gzip-compressed (zlib reads plain files through unchanged).
std::string read_maybe_gzipped(const std::filesystem::path& path) {
  if (!std::filesystem::is_regular_file(path)) {
    throw usage_error(fmt::format("{}: no such file", path.string()));
  }
#if KBENCH_HAS_ZLIB
  gzFile file = gzopen(path.c_str(), "rb");
  if (file == nullptr) throw usage_error(fmt::format("{}: cannot open", path.string()));
  std::string text;
  char chunk[1 << 16];
  for (;;) {
    const int n = gzread(file, chunk, sizeof chunk);
    if (n < 0) {
      int code = 0;
      const std::string message = gzerror(file, &code);
      gzclose(file);
      malformed(path.string(), fmt::format("gzip error: {}", message));
    }
    if (n == 0) break;
    text.append(chunk, static_cast<std::size_t>(n));
    if (text.size() > io::max_records_bytes) {
      gzclose(file);
      malformed(path.string(), fmt::format("more than {} MiB", io::max_records_bytes >> 20));
    }
  }
  const int closed = gzclose(file);
  if (closed == Z_BUF_ERROR) malformed(path.string(), "truncated gzip data");
  if (closed != Z_OK) malformed(path.string(), "gzip error on close");
#else
  std::string text = io::read_file(path, io::max_records_bytes, "tuning space");
  if (text.size() >= 2 && text[0] == '\x1f' && text[1] == '\x8b') {
    throw usage_error(fmt::format(
        "{}: gzip-compressed, and this kbench was built without zlib (KBENCH_WITH_ZLIB)", path.string()));
  }
#endif
  return text;
}

eval_status status_from_kernel_tuner(const std::string& text) {
  if (text == "CompilationFailedConfig") return eval_status::compile_error;
  if (text == "InvalidConfig") return eval_status::invalid_config;
  return eval_status::runtime_error;  // "RuntimeFailedConfig" and anything newer
}

recorded_space finish(std::string description, enumerated_space space, std::vector<evaluation> outcomes) {
  std::optional<config_id> optimum;
  for (const evaluation& e : outcomes) {
    if (e.ok() && (!optimum || e.time_ms < outcomes[*optimum].time_ms)) optimum = e.id;
  }
  return {std::move(description), std::move(space), std::move(outcomes), optimum};
}

recorded_space parse_kernel_tuner(const json& doc, std::string_view source) {
  if (!doc.contains("tune_params") || !doc["tune_params"].is_object())
    malformed(source, "no \"tune_params\" object");
  if (!doc["cache"].is_object()) malformed(source, "\"cache\" is not an object");
  std::vector<std::string> keys;
  if (doc.contains("tune_params_keys")) {
    for (const json& k : doc["tune_params_keys"]) {
      if (!k.is_string()) malformed(source, "\"tune_params_keys\" holds a non-string");
      keys.push_back(k.get<std::string>());
    }
  } else {
    for (const auto& [k, v] : doc["tune_params"].items()) keys.push_back(k);
  }
  std::vector<parameter> parameters;
  // Each parameter's JSON values in order, to map an entry's value to an index.
  std::vector<std::vector<json>> raw_values;
  for (const std::string& name : keys) {
    if (!doc["tune_params"].contains(name) || !doc["tune_params"][name].is_array() ||
        doc["tune_params"][name].empty()) {
      malformed(source, fmt::format("tune_params[\"{}\"] is missing or not a non-empty list", name));
    }
    const json& values = doc["tune_params"][name];
    const bool all_integers = std::all_of(values.begin(), values.end(), [](const json& v) {
      return v.is_number_integer() ||
             (v.is_number_float() && std::floor(v.get<double>()) == v.get<double>() &&
              std::abs(v.get<double>()) < 9e15);
    });
    std::vector<json> raw(values.begin(), values.end());
    try {
      if (all_integers) {
        std::vector<std::int64_t> ints;
        for (const json& v : values)
          ints.push_back(v.is_number_integer() ? v.get<std::int64_t>()
                                               : static_cast<std::int64_t>(v.get<double>()));
        parameter p = parameter::integers(name, ints);
        if (name.find("block_size") != std::string::npos) p.block_size();
        // integers() sorts; keep the raw values in the same order.
        std::sort(raw.begin(), raw.end(),
                  [](const json& a, const json& b) { return a.get<double>() < b.get<double>(); });
        parameters.push_back(std::move(p));
      } else {
        std::vector<std::string> labels;
        for (const json& v : values) labels.push_back(v.is_string() ? v.get<std::string>() : v.dump());
        parameters.push_back(parameter::enumeration(name, labels));
      }
    } catch (const error& e) {
      malformed(source, e.what());
    }
    raw_values.push_back(std::move(raw));
  }
  const auto index_of = [&](std::size_t d, const json& v) -> std::optional<std::uint32_t> {
    for (std::size_t i = 0; i < raw_values[d].size(); ++i) {
      const json& r = raw_values[d][i];
      if (r == v || (r.is_number() && v.is_number() && r.get<double>() == v.get<double>())) {
        return static_cast<std::uint32_t>(i);
      }
    }
    return std::nullopt;
  };

  std::vector<point> points;
  std::vector<std::pair<eval_status, double>> results;
  for (const auto& [key, entry] : doc["cache"].items()) {
    if (!entry.is_object()) malformed(source, fmt::format("cache entry \"{}\" is not an object", key));
    point p(keys.size());
    for (std::size_t d = 0; d < keys.size(); ++d) {
      if (!entry.contains(keys[d]))
        malformed(source, fmt::format("cache entry \"{}\" has no \"{}\"", key, keys[d]));
      const auto index = index_of(d, entry[keys[d]]);
      if (!index) {
        malformed(source, fmt::format("cache entry \"{}\": {} = {} is not in tune_params", key, keys[d],
                                      entry[keys[d]].dump()));
      }
      p[d] = *index;
    }
    if (!entry.contains("time")) malformed(source, fmt::format("cache entry \"{}\" has no \"time\"", key));
    const json& time = entry["time"];
    if (time.is_number()) {
      const double t = time.get<double>();
      if (!(t > 0) || !std::isfinite(t))
        malformed(source, fmt::format("cache entry \"{}\": time {} is not positive", key, t));
      results.emplace_back(eval_status::ok, t);
    } else if (time.is_string()) {
      results.emplace_back(status_from_kernel_tuner(time.get<std::string>()), std::nan(""));
    } else {
      malformed(source, fmt::format("cache entry \"{}\": \"time\" is neither a number nor a string", key));
    }
    points.push_back(std::move(p));
  }
  if (points.empty()) malformed(source, "the cache holds no configs");
  std::string description = fmt::format("{} on {}", doc.value("kernel_name", std::string("kernel")),
                                        doc.value("device_name", std::string("unknown device")));
  try {
    enumerated_space space(std::move(parameters), points);
    std::vector<evaluation> outcomes(points.size());
    for (std::size_t i = 0; i < points.size(); ++i) {
      outcomes[i] = {static_cast<config_id>(i), results[i].first, results[i].second};
    }
    return finish(std::move(description), std::move(space), std::move(outcomes));
  } catch (const error& e) {
    malformed(source, e.what());
  }
}

recorded_space parse_config_log(const json& doc, std::string_view source) {
  if (doc.value("version", 0) != 1) malformed(source, "kbench config log version is not 1");
  if (!doc.contains("parameters") || !doc["parameters"].is_array() || doc["parameters"].empty()) {
    malformed(source, "\"parameters\" is missing or empty");
  }
  if (!doc.contains("configs") || !doc["configs"].is_array()) malformed(source, "\"configs\" is missing");
  std::vector<parameter> parameters;
  try {
    for (const json& p : doc["parameters"]) {
      const std::string name = p.at("name").get<std::string>();
      const std::string kind = p.at("kind").get<std::string>();
      if (kind == "power_of_two" || kind == "integers") {
        const auto values = p.at("values").get<std::vector<std::int64_t>>();
        parameter param = kind == "integers" || values.empty()
                              ? parameter::integers(name, values)
                              : parameter::power_of_two(name, *std::min_element(values.begin(), values.end()),
                                                        *std::max_element(values.begin(), values.end()));
        if (param.size() != values.size())
          malformed(source, fmt::format("parameter '{}': values are not a power-of-two range", name));
        if (p.value("block_size", false)) param.block_size();
        parameters.push_back(std::move(param));
      } else if (kind == "enumeration") {
        parameters.push_back(parameter::enumeration(name, p.at("labels").get<std::vector<std::string>>()));
      } else if (kind == "boolean") {
        parameters.push_back(parameter::boolean(name));
      } else {
        malformed(source, fmt::format("parameter '{}': unknown kind '{}'", name, kind));
      }
    }
  } catch (const json::exception& e) {
    malformed(source, fmt::format("bad parameter: {}", e.what()));
  } catch (const error& e) {
    malformed(source, e.what());
  }
  const auto to_point = [&](const json& values, std::string_view what) {
    if (!values.is_object()) malformed(source, fmt::format("{}: \"values\" is not an object", what));
    if (values.size() != parameters.size())
      malformed(source,
                fmt::format("{}: expected {} values, got {}", what, parameters.size(), values.size()));
    point p(parameters.size());
    for (std::size_t d = 0; d < parameters.size(); ++d) {
      const std::string& name = parameters[d].name();
      if (!values.contains(name) || !values[name].is_number_integer()) {
        malformed(source, fmt::format("{}: no integer value for '{}'", what, name));
      }
      const auto index = parameters[d].index_of(values[name].get<std::int64_t>());
      if (!index)
        malformed(source,
                  fmt::format("{}: {} is not a value of '{}'", what, values[name].get<std::int64_t>(), name));
      p[d] = static_cast<std::uint32_t>(*index);
    }
    return p;
  };
  std::vector<point> points;
  std::vector<evaluation> outcomes;
  std::size_t n = 0;
  for (const json& c : doc["configs"]) {
    const std::string what = fmt::format("configs[{}]", n);
    if (!c.is_object() || !c.contains("values") || !c.contains("status") || !c["status"].is_string()) {
      malformed(source, fmt::format("{}: needs \"values\" and \"status\"", what));
    }
    points.push_back(to_point(c["values"], what));
    eval_status status = eval_status::ok;
    try {
      status = parse_eval_status(c["status"].get<std::string>());
    } catch (const usage_error& e) {
      malformed(source, fmt::format("{}: {}", what, e.what()));
    }
    double time = std::nan("");
    if (status == eval_status::ok) {
      if (!c.contains("time_ms") || !c["time_ms"].is_number() || !(c["time_ms"].get<double>() > 0)) {
        malformed(source, fmt::format("{}: status ok needs a positive \"time_ms\"", what));
      }
      time = c["time_ms"].get<double>();
    }
    outcomes.push_back({static_cast<config_id>(n), status, time});
    ++n;
  }
  if (points.empty()) malformed(source, "\"configs\" is empty");
  std::optional<point> default_point;
  if (doc.contains("default")) default_point = to_point(doc["default"], "default");
  std::string description = fmt::format("{} on {}", doc.value("kernel", std::string("kernel")),
                                        doc.value("device", std::string("unknown device")));
  try {
    enumerated_space space(std::move(parameters), points, default_point);
    return finish(std::move(description), std::move(space), std::move(outcomes));
  } catch (const error& e) {
    malformed(source, e.what());
  }
}

}  // namespace

recorded_space parse_recorded_space(std::string_view text, std::string_view source) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::exception& first) {  // a syntax error, or a number too large (out_of_range)
    // Kernel Tuner writes its cache incrementally and closes it only at the end; an unfinished file lacks
    // "}}".
    try {
      doc = json::parse(std::string(text) + "}}");
    } catch (const json::exception&) {
      malformed(source, fmt::format("invalid JSON: {}", first.what()));
    }
  }
  if (!doc.is_object()) malformed(source, "the top level is not a JSON object");
  try {
    if (doc.contains("format")) {
      if (doc["format"] != "kbench-config-log")
        malformed(source, fmt::format("unknown format {}", doc["format"].dump()));
      return parse_config_log(doc, source);
    }
    if (doc.contains("cache")) return parse_kernel_tuner(doc, source);
  } catch (const json::exception& e) {
    malformed(source, e.what());
  }
  malformed(source, "neither a \"cache\" (Kernel Tuner) nor \"format\": \"kbench-config-log\"");
}

recorded_space load_recorded_space(const std::filesystem::path& path) {
  return parse_recorded_space(read_maybe_gzipped(path), path.string());
}

void save_config_log(const std::filesystem::path& path, const enumerated_space& space,
                     const std::vector<evaluation>& outcomes, std::string_view kernel,
                     std::string_view device) {
  json doc;
  doc["format"] = "kbench-config-log";
  doc["version"] = 1;
  if (!kernel.empty()) doc["kernel"] = kernel;
  if (!device.empty()) doc["device"] = device;
  json parameters = json::array();
  for (const parameter& p : space.parameters()) {
    json entry{{"name", p.name()}, {"kind", to_string(p.kind())}};
    if (p.kind() == parameter_kind::enumeration) {
      entry["labels"] = p.labels();
    } else if (p.kind() != parameter_kind::boolean) {
      entry["values"] = p.values();
    }
    if (p.is_block_size()) entry["block_size"] = true;
    parameters.push_back(std::move(entry));
  }
  doc["parameters"] = std::move(parameters);
  if (const auto d = space.default_id()) doc["default"] = json(space.to_config(*d));
  json configs = json::array();
  for (const evaluation& e : outcomes) {
    json entry{{"values", json(space.to_config(e.id))}, {"status", to_string(e.status)}};
    if (e.ok()) entry["time_ms"] = e.time_ms;
    configs.push_back(std::move(entry));
  }
  doc["configs"] = std::move(configs);
  std::ofstream out(path);
  out << doc.dump(1) << '\n';
  if (!out) KBENCH_THROW("cannot write {}", path.string());
}

double budget_outcome::mean() const {
  return kbench::summarize(fractions).mean;  // 0 for no runs
}

double budget_outcome::quantile(double q) const {
  return fractions.empty() ? 0.0 : kbench::quantile(fractions, q);
}

double budget_outcome::share_reaching(double fraction) const {
  if (fractions.empty()) return 0;
  const auto count =
      std::count_if(fractions.begin(), fractions.end(), [&](double f) { return f >= fraction; });
  return static_cast<double>(count) / static_cast<double>(fractions.size());
}

std::vector<budget_outcome> simulate(const recorded_space& recorded, std::string_view strategy_name,
                                     const simulation_options& options) {
  (void)make_strategy(strategy_name, recorded.space, {});  // an unknown name fails here, before any thread
  std::vector<budget_outcome> outcomes(options.budgets.size());
  for (std::size_t b = 0; b < outcomes.size(); ++b) outcomes[b].budget = options.budgets[b];
  if (!recorded.optimum || options.runs == 0) return outcomes;
  const double optimum = recorded.outcomes[*recorded.optimum].time_ms;
  // Runs are independent and seeded, so they spread over threads without changing the result.
  const std::size_t jobs = options.runs;
  const std::size_t largest = *std::max_element(options.budgets.begin(), options.budgets.end());
  std::vector<std::vector<double>> fractions(jobs, std::vector<double>(options.budgets.size(), 0.0));
  const unsigned workers =
      std::max(1u, std::min(std::thread::hardware_concurrency(), static_cast<unsigned>(jobs)));
  std::vector<std::thread> threads;
  std::exception_ptr failure;
  std::mutex failure_mutex;
  for (unsigned w = 0; w < workers; ++w) {
    threads.emplace_back([&, w] {
      try {
        for (std::size_t run = w; run < jobs; run += workers) {
          auto search = make_strategy(strategy_name, recorded.space, {options.seed + run, largest});
          const search_result result =
              run_search(*search, [&](config_id id) { return recorded.outcomes[id]; }, {largest, 0.0});
          for (std::size_t b = 0; b < options.budgets.size(); ++b) {
            double best_ms = 0;  // the best ok time among the first budgets[b] evaluations; 0: none
            for (std::size_t i = 0; i < std::min(options.budgets[b], result.log.size()); ++i) {
              const evaluation& e = result.log[i];
              if (e.ok() && (best_ms == 0 || e.time_ms < best_ms)) best_ms = e.time_ms;
            }
            if (best_ms > 0) fractions[run][b] = optimum / best_ms;
          }
        }
      } catch (...) {
        const std::lock_guard lock(failure_mutex);
        failure = std::current_exception();
      }
    });
  }
  for (std::thread& t : threads) t.join();
  if (failure) std::rethrow_exception(failure);
  for (std::size_t run = 0; run < jobs; ++run) {
    for (std::size_t b = 0; b < outcomes.size(); ++b) outcomes[b].fractions.push_back(fractions[run][b]);
  }
  return outcomes;
}

}  // namespace kbench::tune
