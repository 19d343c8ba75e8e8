#include <kbench/build_config.hpp>
#include <kbench/error.hpp>
#include <kbench/io/atomic_file.hpp>
#include <kbench/io/directories.hpp>
#include <kbench/io/json_v3.hpp>
#include <kbench/io/read_file.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>
#include <utility>

namespace kbench::io {

namespace {

std::string host_name() {
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0) return "unknown";
  return name;
}

std::string cpu_model() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(" \t", colon + 1));
    }
  }
  return "unknown CPU";
}

/// A /proc/meminfo field [bytes] ("MemTotal", "MemAvailable"); 0 where it cannot be read.
double meminfo_bytes(const std::string& field) {
  std::ifstream meminfo("/proc/meminfo");
  std::string name;
  double kib = 0;
  std::string unit;
  while (meminfo >> name >> kib >> unit) {
    if (name == field + ":") return kib * 1024.0;
  }
  return 0;
}

constexpr double gib = 1024.0 * 1024.0 * 1024.0;

std::string model_backend(backend_kind kind) {
  return kind == backend_kind::torch ? "torch" : fmt::format("kbench-{}", to_string(kind));
}

/// An environment variable, or "" where it is unset.
std::string env_text(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? std::string() : std::string(value);
}

/// An environment variable's non-negative integer, or 0 where it is unset or not one.
std::uint64_t env_number(const char* name) {
  const std::string text = env_text(name);
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) return 0;
  try {
    return std::stoull(text);
  } catch (const std::exception&) {  // out of range
    return 0;
  }
}

/// A JSON object as the hub's Map(String, String): strings kept, every other value as its JSON text.
nlohmann::json string_map(const nlohmann::json& object) {
  nlohmann::json out = nlohmann::json::object();
  if (!object.is_object()) return out;
  for (const auto& [key, value] : object.items())
    out[key] = value.is_string() ? value : nlohmann::json(value.dump());
  return out;
}

}  // namespace

nlohmann::json runner_of(const device_info& device) {
  const bool gpu = device.backend == backend_kind::cuda;
  const std::string runner_name = env_text("RUNNER_NAME");  // GitHub Actions' runner, where set
  const double gpu_gib = gpu ? static_cast<double>(device.global_memory_bytes) / gib : 0.0;
  return nlohmann::json{{"name", runner_name.empty() ? host_name() : runner_name},
                        {"type", device.name},
                        {"cpu_info", cpu_model()},
                        {"cpu_count", std::thread::hardware_concurrency()},
                        {"mem_info", fmt::format("{:.1f} GiB total", meminfo_bytes("MemTotal") / gib)},
                        {"avail_mem_in_gb", static_cast<std::uint32_t>(meminfo_bytes("MemAvailable") / gib)},
                        {"gpu_info", gpu ? device.name : ""},
                        {"gpu_count", gpu ? 1U : 0U},
                        {"gpu_mem_info", gpu ? fmt::format("{:.1f} GiB total", gpu_gib) : ""},
                        {"avail_gpu_mem_in_gb", static_cast<std::uint32_t>(gpu_gib)},
                        {"extra_info",
                         {{"hostname", host_name()},
                          {"backend", std::string(to_string(device.backend))},
                          {"platform", device.platform},
                          {"driver_version", device.driver_version}}}};
}

nlohmann::json make_record(const record_context& context, const std::string& metric,
                           const std::vector<double>& values, nlohmann::json metric_extra) {
  const bool labelled = !context.backend_label.empty();
  const std::string backend =
      labelled ? context.backend_label : std::string(to_string(context.device.backend));
  nlohmann::json extra = context.extra;
  extra["device"] = context.device.name;
  extra["backend"] = backend;
  extra["shape"] = context.shape;
  extra["effort"] = context.effort;
  extra["config"] = context.config;
  nlohmann::json runner = runner_of(context.device);
  runner["extra_info"]["backend"] = backend;
  runner["extra_info"] = string_map(runner["extra_info"]);
  nlohmann::json dependencies = {{"kbench",
                                  {{"repo", ""},
                                   {"branch", ""},
                                   {"sha", ""},
                                   {"version", KBENCH_VERSION},
                                   {"extra_info", nlohmann::json::object()}}}};
  if (context.device.backend == backend_kind::torch) {
    dependencies["libtorch"] = {{"repo", "pytorch/pytorch"},
                                {"branch", ""},
                                {"sha", ""},
                                {"version", context.device.driver_version},
                                {"extra_info", nlohmann::json::object()}};
  }
  // The change measured, from GitHub Actions' environment where it is set (the hub's uploader fills the same
  // fields); elsewhere empty strings and zeros, as the schema's defaults.
  const std::string pr_branch = env_text("GITHUB_HEAD_REF");
  return nlohmann::json{
      {"schema_version", "v3"},
      {"timestamp", static_cast<std::uint64_t>(std::max<std::int64_t>(context.timestamp, 0))},
      {"name", "kbench"},
      {"repo", env_text("GITHUB_REPOSITORY")},
      {"head_branch", pr_branch.empty() ? env_text("GITHUB_REF_NAME") : pr_branch},
      {"head_sha", env_text("GITHUB_SHA")},
      {"workflow_id", env_number("GITHUB_RUN_ID")},
      {"run_attempt", static_cast<std::uint32_t>(env_number("GITHUB_RUN_ATTEMPT"))},
      {"job_id", env_number("KBENCH_JOB_ID")},
      {"benchmark",
       {{"name", "kbench"},
        {"mode", "inference"},
        {"dtype", context.dtype},
        {"extra_info", string_map(extra)}}},
      {"model",
       {{"name", context.kernel},
        {"type", "kernel"},
        {"backend", labelled ? backend : model_backend(context.device.backend)},
        {"origins", {"kbench"}},
        {"extra_info", nlohmann::json::object()}}},
      {"inputs", {{"input", {{"dtype", context.dtype}, {"extra_info", {{"shape", context.shape}}}}}}},
      {"dependencies", std::move(dependencies)},
      {"metric",
       {{"name", metric},
        {"benchmark_values", values},
        {"target_value", 0.0},
        {"extra_info", string_map(metric_extra)}}},
      {"runners", nlohmann::json::array({runner})}};
}

nlohmann::json make_timing_record(const record_context& context, const std::string& metric,
                                  const std::vector<double>& values, bool valid,
                                  nlohmann::json metric_extra) {
  if (valid) return make_record(context, metric, values, std::move(metric_extra));
  metric_extra["invalid_samples"] = values;
  return make_record(context, metric, {}, std::move(metric_extra));
}

nlohmann::json measurement_metric_records(const record_context& context, const measurement& m) {
  nlohmann::json records = nlohmann::json::array();
  const nlohmann::json checks = {{"stat", "median"},
                                 {"valid", m.valid()},
                                 {"result_sync_violations", m.result_sync_violations},
                                 {"barrier_violations", m.barrier_violations}};
  auto metric = [&](const char* name, const std::vector<double>& values, const summary& st) {
    nlohmann::json extra = checks;
    extra["median"] = st.median;
    extra["cv"] = st.cv;
    extra["ci99_low"] = st.median_ci_low;
    extra["ci99_high"] = st.median_ci_high;
    records.push_back(make_timing_record(context, name, values, m.valid(), extra));
  };
  metric("latency_ms", m.wall_ms, m.wall);
  metric("throughput_ms", m.throughput_ms, m.throughput);
  metric("device_ms", m.device_ms, m.device);
  nlohmann::json capture = checks;
  capture["captured"] = m.calls_captured;
  capture["dispatched"] = m.calls_dispatched;
  records.push_back(make_record(context, "capture_ratio", {m.capture_ratio()}, capture));
  // Whether the machine was busy while it was timed, as a metric the history keeps
  // (history/machine_marks.hpp).
  if (m.machine.measured) {
    records.push_back(make_record(context, "machine_disturbed", {m.machine.quiet ? 0.0 : 1.0},
                                  {{"machine_detail", m.machine.describe()}}));
  }
  return records;
}

std::string validate_records(const nlohmann::json& doc) {
  if (!doc.is_array()) return "not a JSON list";
  for (std::size_t i = 0; i < doc.size(); ++i) {
    const auto& r = doc[i];
    auto fail = [&](const std::string& why) { return fmt::format("record {}: {}", i, why); };
    if (!r.is_object()) return fail("not an object");
    if (r.value("schema_version", "") != "v3") return fail("schema_version is not \"v3\"");
    for (const char* key : {"benchmark", "model", "metric"}) {
      if (!r.contains(key) || !r[key].is_object()) return fail(fmt::format("missing object '{}'", key));
    }
    if (!r["model"].contains("name") || !r["metric"].contains("name"))
      return fail("missing model.name or metric.name");
    if (!r["metric"].contains("benchmark_values") || !r["metric"]["benchmark_values"].is_array()) {
      return fail("metric.benchmark_values is not a list");
    }
    // A field of the wrong type would otherwise be read as 0 or "" and its run stored as another one (a
    // timestamp of "yesterday" as 1970): refused, with its path in the record.
    const auto& stamp = r.contains("timestamp") ? r["timestamp"] : nlohmann::json();
    if (!(stamp.is_number_unsigned() || (stamp.is_number_integer() && stamp.get<std::int64_t>() >= 0))) {
      return fail(fmt::format("timestamp is {}, not whole seconds since 1970", stamp.dump()));
    }
    for (const auto& [object, key] : {std::pair{"model", "name"}, std::pair{"metric", "name"}}) {
      if (!r[object][key].is_string())
        return fail(fmt::format("{}.{} is {}, not a string", object, key, r[object][key].dump()));
    }
    if (r["benchmark"].contains("extra_info") && !r["benchmark"]["extra_info"].is_object())
      return fail("benchmark.extra_info is not an object");
    if (r.contains("runners") && !r["runners"].is_array()) return fail("runners is not a list");
  }
  return {};
}

namespace {
/// The records in `path`: an empty list when it does not exist; throws when it is not a list of v3 records.
nlohmann::json existing_records(const std::filesystem::path& path) {
  if (!std::filesystem::exists(path)) return nlohmann::json::array();
  const std::string text = read_file(path, max_records_bytes, "results file");
  nlohmann::json existing = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (existing.is_discarded()) {
    throw usage_error(
        fmt::format("{} exists and is not valid JSON; refusing to overwrite it", path.string()));
  }
  if (std::string why = validate_records(existing); !why.empty()) {
    throw usage_error(fmt::format("{} exists and is not a list of v3 records ({}); refusing to overwrite it",
                                  path.string(), why));
  }
  return existing;
}
}  // namespace

void check_appendable(const std::filesystem::path& path) {
  check_writable(path, "the results file");
  (void)existing_records(path);
}

void append_records(const std::filesystem::path& path, const nlohmann::json& records) {
  nlohmann::json all = existing_records(path);
  for (const auto& r : records) all.push_back(r);
  write_file_atomically(path, all.dump(2) + "\n");
}

std::filesystem::path append_records_or_rescue(const std::filesystem::path& path,
                                               const nlohmann::json& records, std::string& failure) {
  failure.clear();
  try {
    if (path.empty()) throw usage_error("no results file was given");
    append_records(path, records);
    return path;
  } catch (const std::exception& e) {
    failure = e.what();
  }
  const auto stamp =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
          .count();
  const std::filesystem::path rescue_dir = cache_directory() / "unsaved";
  std::filesystem::create_directories(rescue_dir);
  std::filesystem::path rescue;
  for (int n = 1; rescue.empty() || std::filesystem::exists(rescue); ++n) {
    rescue = rescue_dir / fmt::format("{}-{}{}.json", path.empty() ? "results" : path.stem().string(), stamp,
                                      n == 1 ? "" : fmt::format("-{}", n));
  }
  write_file_atomically(rescue, records.dump(2) + "\n");
  return rescue;
}

}  // namespace kbench::io
