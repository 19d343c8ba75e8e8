// Tuning a Python kernel's parameters with the suite's tuner (suite::choose_config): the space from the
// kernel's parameters, its cache key, and the search, re-timing and final pick run by the engine against a
// Python trial worker, as for a C++ kernel. Also the plain search with a Python evaluator and the cache
// entries as JSON, for tools that tune something else.

#include "bindings.hpp"

#include <kbench/build_config.hpp>
#include <kbench/device.hpp>
#include <kbench/error.hpp>
#include <kbench/suite/tune_shape.hpp>
#include <kbench/suite/tuning_request.hpp>
#include <kbench/tune/cache.hpp>
#include <kbench/tune/search.hpp>
#include <kbench/tune/space.hpp>
#include <kbench/tune/strategy.hpp>

#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace nb = nanobind;

namespace kbench::python {

namespace {

// One parameter as Python describes it: name, kind (integers, enumeration, boolean), the integers of an
// integers parameter, the labels of an enumeration.
using parameter_spec =
    std::tuple<std::string, std::string, std::vector<std::int64_t>, std::vector<std::string>>;

// A config as a Python dict of ints.
nb::dict dict_of(const config& values) {
  nb::dict d;
  for (const auto& [name, value] : values) d[nb::str(name.c_str())] = nb::int_(value);
  return d;
}

tune::space space_of(const std::vector<parameter_spec>& parameters,
                     const std::optional<config>& default_config) {
  tune::space space;
  for (const auto& [name, kind, values, labels] : parameters) {
    if (kind == "integers") {
      space.add(tune::parameter::integers(name, values));
    } else if (kind == "enumeration") {
      space.add(tune::parameter::enumeration(name, labels));
    } else if (kind == "boolean") {
      space.add(tune::parameter::boolean(name));
    } else {
      throw usage_error("unknown parameter kind '" + kind + "' (valid: integers, enumeration, boolean)");
    }
  }
  if (default_config) space.set_default(*default_config);
  return space;
}

// The search over the kernel's configs: `evaluate(config)` returns (status, time_ms), status one of
// tune::eval_status's names. Runs with the GIL released; each evaluation takes it back.
nb::dict search(const std::vector<parameter_spec>& parameters, const std::optional<config>& default_config,
                const std::string& strategy_name, std::size_t max_evals, double time_budget_s,
                std::uint64_t seed, nb::callable evaluate) {
  const tune::space space = space_of(parameters, default_config);
  const tune::enumerated_space valid = space.enumerate(device_info{});
  const auto strategy = tune::make_strategy(strategy_name, valid, {seed, max_evals});
  const tune::evaluate_function evaluate_one = [&](tune::config_id id) {
    nb::gil_scoped_acquire gil;
    const nb::tuple outcome = nb::cast<nb::tuple>(evaluate(dict_of(valid.to_config(id))));
    tune::evaluation e;
    e.id = id;
    e.status = tune::parse_eval_status(nb::cast<std::string>(outcome[0]));
    e.time_ms = e.ok() ? nb::cast<double>(outcome[1]) : std::numeric_limits<double>::quiet_NaN();
    return e;
  };
  tune::search_result result;
  {
    nb::gil_scoped_release released;
    result = tune::run_search(*strategy, evaluate_one, {max_evals, time_budget_s});
  }
  nb::list log;
  for (const auto& e : result.log) {
    log.append(nb::make_tuple(dict_of(valid.to_config(e.id)),
                              nb::str(std::string(tune::to_string(e.status)).c_str()),
                              nb::float_(e.time_ms)));
  }
  nb::dict d;
  d["log"] = log;
  d["best"] = result.best ? nb::object(dict_of(valid.to_config(result.best->id))) : nb::none();
  d["strategy"] = std::string(strategy->name());
  d["valid_configs"] = valid.size();
  return d;
}

std::string space_hash(const std::vector<parameter_spec>& parameters,
                       const std::optional<config>& default_config) {
  return space_of(parameters, default_config).definition_hash_text();
}

// The tuning flags of python -m kbench run as the suite's tuning_request; an unknown name is refused.
suite::tuning_request tuning_request_of(const nb::dict& flags) {
  suite::tuning_request r;
  for (const auto& [name_object, value] : flags) {
    const std::string name = nb::cast<std::string>(name_object);
    if (value.is_none()) continue;  // the effort's (or kbench's) default
    if (name == "strategy") {
      r.strategy = nb::cast<std::string>(value);
    } else if (name == "max_evals") {
      r.max_evals = nb::cast<std::size_t>(value);
    } else if (name == "time_budget_s") {
      r.time_budget_s = nb::cast<double>(value);
    } else if (name == "assert_cache_hit") {
      r.assert_cache_hit = nb::cast<bool>(value);
    } else if (name == "force_autotune") {
      r.force_autotune = nb::cast<bool>(value);
    } else if (name == "no_cache") {
      r.no_cache = nb::cast<bool>(value);
    } else if (name == "config_timeout_s") {
      r.config_timeout_s = nb::cast<double>(value);
    } else if (name == "tune_target_ms") {
      r.tune_target_ms = nb::cast<double>(value);
    } else if (name == "retime_within") {
      r.retime_within = nb::cast<double>(value);
    } else if (name == "give_up_above") {
      r.give_up_above = nb::cast<double>(value);
    } else {
      throw usage_error("unknown tuning flag '" + name +
                        "' (valid: strategy, max_evals, time_budget_s, assert_cache_hit, force_autotune, "
                        "no_cache, config_timeout_s, tune_target_ms, retime_within, give_up_above)");
    }
  }
  return r;
}

// The config of a Python kernel x shape by the suite's tuner: `key` holds the cache-key fields only the
// Python side knows (kernel, shape, dtype, backend, device, driver, source_hash); the space hash and
// kbench's version are the engine's. `worker_argv` starts a Python trial worker for this shape.
nb::dict choose_config_for(const std::vector<parameter_spec>& parameters,
                           const std::optional<config>& default_config,
                           const std::map<std::string, std::string>& key_fields,
                           const std::vector<std::string>& worker_argv, const nb::dict& flags,
                           const std::string& effort, std::uint64_t seed, const std::string& cache_directory,
                           nb::callable progress) {
  suite::tuning_options options =
      suite::tuning_options_from(tuning_request_of(flags), effort, backend_kind::cpu, seed);
  if (!cache_directory.empty()) options.cache_directory = cache_directory;
  options.progress = [&](const std::string& line) {
    nb::gil_scoped_acquire gil;
    progress(line);
  };
  suite::tuning_target target;
  target.space = space_of(parameters, default_config);
  const auto field = [&](const char* name) {
    const auto found = key_fields.find(name);
    if (found == key_fields.end()) throw usage_error(std::string("the cache key needs its ") + name);
    return found->second;
  };
  target.key = {field("kernel"),
                field("shape"),
                field("dtype"),
                field("backend"),
                field("device"),
                field("driver"),
                field("source_hash"),
                "",
                ""};
  target.key.space_hash = target.space.definition_hash_text();
  target.key.kbench_version = KBENCH_VERSION;
  target.default_config = target.space.default_config();
  target.worker_argv = worker_argv;
  suite::tuning_outcome outcome;
  {
    nb::gil_scoped_release released;
    outcome = suite::choose_config(target, options);
  }
  nb::dict d;
  d["source"] = std::string(suite::to_string(outcome.source));
  d["chosen"] = dict_of(outcome.chosen);
  d["best_time_ms"] = outcome.best_time_ms;
  d["tuning_s"] = outcome.tuning_s;
  d["evaluations"] = outcome.evaluations;
  d["resumed"] = outcome.resumed;
  d["failed"] = outcome.failed;
  d["space_size"] = outcome.space_size;
  d["logged"] = outcome.log.size();
  d["message"] = outcome.message;
  d["warnings"] = outcome.warnings;
  d["cache_file"] = options.cache == suite::cache_mode::off
                        ? std::string()
                        : tune::tuning_cache(options.cache_directory).path_of(target.key).string();
  return d;
}

nb::dict effort(const std::string& level) {
  const tune::effort_settings settings = tune::effort_settings_for(level);
  nb::dict d;
  d["strategy"] = settings.strategy;
  d["max_evals"] = settings.budget.max_evals;
  d["time_budget_s"] = settings.budget.time_budget_s;
  return d;
}

// The complete or partial entry stored under the key (JSON text), as JSON text ("" when there is none),
// with the warnings about unreadable files met on the way.
std::tuple<std::string, std::vector<std::string>> cache_read(const std::string& directory,
                                                             const std::string& key_json) {
  const tune::cache_key key = nlohmann::json::parse(key_json).get<tune::cache_key>();
  const tune::cache_lookup lookup = tune::tuning_cache(directory).read(key);
  return {lookup.entry ? nlohmann::json(*lookup.entry).dump() : std::string(), lookup.warnings};
}

void cache_write(const std::string& directory, const std::string& entry_json) {
  tune::tuning_cache(directory).write(nlohmann::json::parse(entry_json).get<tune::cache_entry>());
}

std::string cache_describe_miss(const std::string& directory, const std::string& key_json) {
  return tune::tuning_cache(directory).describe_miss(nlohmann::json::parse(key_json).get<tune::cache_key>());
}

std::string cache_path(const std::string& directory, const std::string& key_json) {
  return tune::tuning_cache(directory)
      .path_of(nlohmann::json::parse(key_json).get<tune::cache_key>())
      .string();
}

}  // namespace

void bind_tune(nb::module_& m) {
  m.def("tune_search", &search, nb::arg("parameters"), nb::arg("default").none(), nb::arg("strategy"),
        nb::arg("max_evals"), nb::arg("time_budget_s"), nb::arg("seed"), nb::arg("evaluate"),
        "Searches a kernel's configs with a strategy (kbench::tune::run_search).");
  m.def("choose_config", &choose_config_for, nb::arg("parameters"), nb::arg("default").none(), nb::arg("key"),
        nb::arg("worker_argv"), nb::arg("flags"), nb::arg("effort"), nb::arg("seed"),
        nb::arg("cache_directory"), nb::arg("progress"),
        "The config of a kernel x shape by the suite's tuner (suite::choose_config) against a trial worker: "
        "source, chosen, best_time_ms, tuning_s, evaluations, resumed, failed, space_size, logged, message, "
        "warnings, cache_file.");
  m.attr("trial_answer_prefix") = std::string(suite::trial_answer_prefix);
  m.def(
      "check_tuning_flags",
      [](const nb::dict& flags, const std::string& effort) {
        (void)suite::tuning_options_from(tuning_request_of(flags), effort, backend_kind::cpu, 0);
      },
      nb::arg("flags"), nb::arg("effort"),
      "Raises what kbench run says of an unknown effort or strategy or contradictory tuning flags.");
  m.def("tune_space_hash", &space_hash, nb::arg("parameters"), nb::arg("default").none(),
        "The space's definition hash, a cache-key field.");
  m.def("tune_effort", &effort, nb::arg("level"), "The strategy and budget of none, quick or full.");
  m.def(
      "cache_default_directory", [] { return tune::tuning_cache::default_directory().string(); },
      "$KBENCH_CACHE_DIR, else ~/.cache/kbench.");
  m.def("cache_read", &cache_read, nb::arg("directory"), nb::arg("key_json"), "A tuning cache entry.");
  m.def("cache_write", &cache_write, nb::arg("directory"), nb::arg("entry_json"),
        "Stores a tuning cache entry atomically.");
  m.def("cache_describe_miss", &cache_describe_miss, nb::arg("directory"), nb::arg("key_json"),
        "The key looked up and the nearest cached entries' differing fields.");
  m.def("cache_path", &cache_path, nb::arg("directory"), nb::arg("key_json"), "The file of an entry.");
  m.def(
      "kbench_version", [] { return std::string(KBENCH_VERSION); }, "The version of kbench's C++ libraries.");
}

}  // namespace kbench::python
