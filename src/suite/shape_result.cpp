#include <kbench/error.hpp>
#include <kbench/host_cache.hpp>
#include <kbench/stats.hpp>
#include <kbench/suite/shape_result.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>
#include <utility>

namespace kbench::suite {

namespace {
constexpr std::array<std::pair<shape_status, std::string_view>, 9> status_names{{
    {shape_status::ok, "ok"},
    {shape_status::wrong_result, "wrong result"},
    {shape_status::build_error, "build error"},
    {shape_status::runtime_error, "runtime error"},
    {shape_status::invalid_timing, "invalid timing"},
    {shape_status::crashed, "crashed"},
    {shape_status::timeout, "timeout"},
    {shape_status::unavailable, "unavailable"},
    {shape_status::cache_miss, "cache miss"},
}};
}  // namespace

std::string_view to_string(shape_status status) {
  for (const auto& [s, name] : status_names) {
    if (s == status) return name;
  }
  return "unknown";
}

shape_status parse_shape_status(std::string_view text) {
  for (const auto& [s, name] : status_names) {
    if (name == text) return s;
  }
  KBENCH_THROW("unknown shape status '{}'", text);
}

double impl_result::median_latency_ms() const {
  return latency_ms.empty() ? 0.0 : summarize(latency_ms).median;
}

std::optional<double> shape_result::speedup() const {
  if (!kbench || !torch || kbench->latency_ms.empty() || torch->latency_ms.empty()) return std::nullopt;
  const double k = kbench->median_latency_ms();
  return k > 0 ? std::optional<double>(torch->median_latency_ms() / k) : std::nullopt;
}

std::string_view speedup_estimate::verdict() const {
  if (disturbed) return "unreliable";
  if (!beyond_min_effect(ratio, min_effect)) return "same";
  if (low > 1) return "faster";
  if (high < 1) return "slower";
  return "same";
}

std::optional<speedup_estimate> estimate_speedup(std::span<const double> kbench_ms,
                                                 std::span<const double> baseline_ms, bool disturbed,
                                                 double min_effect) {
  if (kbench_ms.empty() || baseline_ms.empty()) return std::nullopt;
  const summary k = summarize(kbench_ms);
  const summary t = summarize(baseline_ms);
  if (!(k.median > 0 && k.median_ci_low > 0)) return std::nullopt;
  return speedup_estimate{t.median / k.median, t.median_ci_low / k.median_ci_high,
                          t.median_ci_high / k.median_ci_low, disturbed, min_effect};
}

std::optional<speedup_estimate> shape_result::speedup_interval(double min_effect) const {
  if (!kbench || !torch) return std::nullopt;
  return estimate_speedup(kbench->latency_ms, torch->latency_ms, machine && !machine->quiet, min_effect);
}

namespace {
/// `per_call` [units per call] / the median of `latency_ms` [ms], in giga-units per second; nullopt without
/// samples or amount.
std::optional<double> giga_per_second(double per_call, const std::vector<double>& latency_ms) {
  if (latency_ms.empty() || per_call <= 0) return std::nullopt;
  const double t = summarize(latency_ms).median;
  return t > 0 ? std::optional<double>(per_call / (t * 1e-3) / 1e9) : std::nullopt;
}
}  // namespace

std::optional<double> shape_result::bandwidth_gbps() const {
  return kbench ? giga_per_second(bytes_moved, kbench->latency_ms) : std::nullopt;
}

std::optional<double> shape_result::gflops() const {
  return kbench ? giga_per_second(flops, kbench->latency_ms) : std::nullopt;
}

bool shape_result::compute_bound() const {
  return flops > 0 && bytes_moved > 0 && flops / bytes_moved >= compute_bound_flops_per_byte;
}

std::optional<double> triad_turns::gbps() const {
  return giga_per_second(bytes_per_call, latency_ms);
}

std::optional<double> shape_result::triad_fraction() const {
  const auto kernel_gbps = bandwidth_gbps();
  const auto triad_gbps = triad ? triad->gbps() : std::nullopt;
  if (!kernel_gbps || !triad_gbps) return std::nullopt;
  return *kernel_gbps / *triad_gbps;
}

std::string impl_result::measures_disagreement() const {
  if (latency_ms.empty()) return {};
  const double latency = summarize(latency_ms).median;
  auto beyond = [&](double value, double ratio) {
    return value > ratio * latency && value - latency > disagreement_floor_ms;
  };
  std::vector<std::string> found;
  if (!throughput_ms.empty()) {
    const double throughput = summarize(throughput_ms).median;
    if (beyond(throughput, max_throughput_to_latency)) {
      found.push_back(fmt::format("throughput {:.4g} ms per call is {:.1f}x the latency {:.4g} ms",
                                  throughput, throughput / latency, latency));
    }
  }
  if (!device_ms.empty()) {
    const double device_time = summarize(device_ms).median;
    if (beyond(device_time, max_device_to_latency)) {
      found.push_back(fmt::format("device time {:.4g} ms is {:.1f}x the latency {:.4g} ms", device_time,
                                  device_time / latency, latency));
    }
  }
  if (found.empty()) return {};
  return fmt::format(
      "measures disagree: {} (the measure phase and the interleaved turns ran under different "
      "conditions, or pipelined calls were slower than synchronized ones)",
      fmt::join(found, "; "));
}

std::optional<peak_share> shape_result::share_of_peak(double peak_gbps, double cache_bytes) const {
  const auto gbps = bandwidth_gbps();
  if (!gbps || !(peak_gbps > 0)) return std::nullopt;
  peak_share share;
  share.fraction = *gbps / peak_gbps;
  share.from_cache = share.fraction > 1 || (cache_bytes > 0 && bytes_moved <= cache_bytes);
  return share;
}

bool shares_host_caches(const device_info& device) {
  if (device.backend == backend_kind::cpu || device.backend == backend_kind::torch) return true;
  // OpenCL cpu devices: PoCL names them "pthread-<cpu>" or "cpu-<cpu>"; vendors' runtimes report the cpu's
  // vendor id.
  return device.backend == backend_kind::opencl &&
         (device.name.rfind("pthread-", 0) == 0 || device.name.rfind("cpu-", 0) == 0 ||
          device.vendor == "GenuineIntel" || device.vendor == "AuthenticAMD");
}

double cache_bytes_of(const device_info& device) {
  return shares_host_caches(device) ? static_cast<double>(last_level_cache_share_bytes()) : 0.0;
}

namespace {
nlohmann::json device_to_json(const device_info& d) {
  return {{"backend", std::string(kbench::to_string(d.backend))},
          {"name", d.name},
          {"vendor", d.vendor},
          {"platform", d.platform},
          {"driver_version", d.driver_version},
          {"max_work_group_size", d.max_work_group_size},
          {"global_memory_bytes", d.global_memory_bytes},
          {"compute_units", d.compute_units}};
}
device_info device_from_json(const nlohmann::json& j) {
  device_info d;
  d.backend = kbench::parse_backend_kind(j.at("backend").get<std::string>());
  d.name = j.at("name");
  d.vendor = j.at("vendor");
  d.platform = j.at("platform");
  d.driver_version = j.at("driver_version");
  d.max_work_group_size = j.at("max_work_group_size");
  d.global_memory_bytes = j.at("global_memory_bytes");
  d.compute_units = j.at("compute_units");
  return d;
}
}  // namespace

void to_json(nlohmann::json& j, const impl_result& r) {
  j = {{"impl", r.impl},
       {"device", device_to_json(r.device)},
       {"backend_label", r.backend_label},
       {"config", r.config},
       {"baseline_form", r.baseline_form},
       {"accurate", r.accurate},
       {"max_abs_error", r.max_abs_error},
       {"max_rel_error", r.max_rel_error},
       {"mismatches", r.mismatches},
       {"latency_ms", r.latency_ms},
       {"throughput_ms", r.throughput_ms},
       {"device_ms", r.device_ms},
       {"captured", r.captured},
       {"dispatched", r.dispatched},
       {"sync_violations", r.sync_violations},
       {"valid", r.valid},
       {"warnings", r.warnings}};
}

void from_json(const nlohmann::json& j, impl_result& r) {
  r.impl = j.at("impl");
  r.device = device_from_json(j.at("device"));
  r.backend_label = j.value("backend_label", std::string());
  r.config = j.at("config");
  r.baseline_form = j.at("baseline_form");
  r.accurate = j.at("accurate");
  r.max_abs_error = j.at("max_abs_error");
  r.max_rel_error = j.at("max_rel_error");
  r.mismatches = j.at("mismatches");
  r.latency_ms = j.at("latency_ms").get<std::vector<double>>();
  r.throughput_ms = j.at("throughput_ms").get<std::vector<double>>();
  r.device_ms = j.at("device_ms").get<std::vector<double>>();
  r.captured = j.at("captured");
  r.dispatched = j.at("dispatched");
  r.sync_violations = j.at("sync_violations");
  r.valid = j.at("valid");
  r.warnings = j.at("warnings").get<std::vector<std::string>>();
}

void to_json(nlohmann::json& j, const triad_turns& t) {
  j = {{"latency_ms", t.latency_ms}, {"bytes_per_call", t.bytes_per_call}, {"stores", t.stores}};
}

void from_json(const nlohmann::json& j, triad_turns& t) {
  t.latency_ms = j.at("latency_ms").get<std::vector<double>>();
  t.bytes_per_call = j.at("bytes_per_call");
  t.stores = j.at("stores");
}

void to_json(nlohmann::json& j, const shape_result& r) {
  j = {{"kernel", r.kernel},
       {"shape", r.shape},
       {"shape_index", r.shape_index},
       {"status", std::string(to_string(r.status))},
       {"reason", r.reason},
       {"bytes_moved", r.bytes_moved},
       {"flops", r.flops},
       {"elapsed_s", r.elapsed_s},
       {"config_source", r.config_source},
       {"tuning_s", r.tuning_s},
       {"tuning_evaluations", r.tuning_evaluations}};
  if (r.kbench) j["kbench"] = *r.kbench;
  if (r.torch) j["torch"] = *r.torch;
  if (r.triad) j["triad"] = *r.triad;
  if (r.machine) j["machine"] = *r.machine;
  if (r.baseline) j["baseline"] = *r.baseline;
}

void from_json(const nlohmann::json& j, shape_result& r) {
  r.kernel = j.at("kernel");
  r.shape = j.at("shape");
  r.shape_index = j.at("shape_index");
  r.status = parse_shape_status(j.at("status").get<std::string>());
  r.reason = j.at("reason");
  r.bytes_moved = j.at("bytes_moved");
  r.flops = j.value("flops", 0.0);
  r.elapsed_s = j.at("elapsed_s");
  r.config_source = j.value("config_source", std::string("default"));
  r.tuning_s = j.value("tuning_s", 0.0);
  r.tuning_evaluations = j.value("tuning_evaluations", std::size_t{0});
  if (j.contains("kbench")) r.kbench = j.at("kbench").get<impl_result>();
  if (j.contains("torch")) r.torch = j.at("torch").get<impl_result>();
  if (j.contains("triad")) r.triad = j.at("triad").get<triad_turns>();
  if (j.contains("machine")) r.machine = j.at("machine").get<contention>();
  if (j.contains("baseline")) r.baseline = j.at("baseline").get<baseline_setting>();
}

}  // namespace kbench::suite
