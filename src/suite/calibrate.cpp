#include <kbench/backends/stream_kernels.hpp>
#include <kbench/error.hpp>
#include <kbench/io/atomic_file.hpp>
#include <kbench/io/directories.hpp>
#include <kbench/io/json_v3.hpp>
#include <kbench/io/move_aside.hpp>
#include <kbench/io/read_file.hpp>
#include <kbench/measure.hpp>
#include <kbench/suite/calibrate.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>
#include <system_error>
#include <utility>
#include <vector>

namespace kbench::suite {

namespace {

constexpr int calibration_rounds = 5;
constexpr double round_target_ms = 100;  // [ms] of calls per kernel per round: 1 s of calls in all

/// STREAM's checkSTREAMresults: a bandwidth is only as good as the kernel's writes. From a = b = c = 1, a
/// round's copy calls (b = a, either store kind) and triad calls (a = b + 3c) leave b = a_before and
/// a = a_before + 3, whatever their number; after `rounds` rounds a = 1 + 3 rounds and b = a - 3, exact in
/// float. Throws kbench::error at the first element that differs.
void check_stream_results(const buffer_ptr& a, const buffer_ptr& b, const buffer_ptr& c, std::size_t elements,
                          int rounds) {
  const float expected_a = 1.0f + stream_triad_scale * static_cast<float>(rounds);
  const std::array<std::pair<const buffer_ptr*, float>, 3> arrays{
      {{&a, expected_a}, {&b, expected_a - stream_triad_scale}, {&c, 1.0f}}};
  const std::array<const char*, 3> names{"a", "b", "c"};
  std::vector<float> host(elements);
  for (std::size_t k = 0; k < arrays.size(); ++k) {
    (*arrays[k].first)->read(host.data(), elements * sizeof(float));
    const auto wrong = std::find_if(host.begin(), host.end(), [&](float v) { return v != arrays[k].second; });
    if (wrong != host.end()) {
      KBENCH_THROW(
          "calibration: the copy and triad kernels left {}[{}] = {} instead of {}: their bandwidth is "
          "not reported",
          names[k], wrong - host.begin(), *wrong, arrays[k].second);
    }
  }
}

}  // namespace

calibration calibrate_device(const device_ptr& device, std::size_t elements,
                             const std::function<void(int, int, double)>& on_round) {
  elements = (elements + 3) / 4 * 4;  // whole float4 vectors
  const std::size_t bytes = elements * sizeof(float);
  const auto [a, b, c] = make_stream_arrays(device, elements);
  const stream_kernels kernels = make_stream_kernels(device, a, b, c, elements);

  // A peak, as STREAM reports the best of its NTIMES repetitions: on a shared host (a VM, a busy node) the
  // bandwidth left to one process drifts with what its neighbours do, over seconds, and one measurement
  // happens to catch a quiet or a busy stretch. So copy and triad alternate over `calibration_rounds`
  // rounds of target_ms each; each round's bandwidth is from its median call (one odd call moves nothing),
  // the result is the best round, and the worst round is kept beside it to show the spread.
  // Where a backend has them (cpu), each round also times both kernels with non-temporal stores and keeps
  // the faster kind: a kernel that streams its output (add, exp, the row kernels with STREAM 1) skips the
  // read-for-ownership of every line it writes, and the peak it is compared against must too: against
  // normal stores only, a streaming kernel went over the "peak" (docs/code-figures.md).

  measure_options options;
  options.target_ms = round_target_ms;
  auto gbps_of = [&](const std::function<call_result()>& call, const char* name, double bytes_per_call) {
    const measurement m = measure(bench_target{name, call, [device] { device->barrier(); }, {}}, options);
    if (!m.valid()) KBENCH_THROW("calibration {} measured invalid: {}", name, fmt::join(m.warnings, "; "));
    return bytes_per_call / (m.wall.median * 1e-3) / 1e9;  // [GB/s] from the median wall latency [ms]
  };
  // One round of one kernel: the faster store kind's bandwidth [GB/s] and its name.
  auto round_of = [&](const std::function<call_result()>& normal,
                      const std::function<call_result()>& streaming, const char* name,
                      double bytes_per_call) {
    std::pair<double, const char*> best{gbps_of(normal, name, bytes_per_call), stores_normal};
    if (streaming) {
      const double nt = gbps_of(streaming, name, bytes_per_call);
      if (nt > best.first) best = {nt, stores_non_temporal};
    }
    return best;
  };
  calibration result;
  result.backend = std::string(to_string(device->info().backend));
  result.device = device->info().name;
  result.elements = elements;
  result.rounds = calibration_rounds;
  result.copy_low_gbps = result.triad_low_gbps = std::numeric_limits<double>::infinity();
  for (int round = 0; round < calibration_rounds; ++round) {
    const auto [copy, copy_stores] =
        round_of(kernels.copy, kernels.copy_streaming, "copy", 2.0 * static_cast<double>(bytes));
    const auto [triad, triad_stores] =
        round_of(kernels.triad, kernels.triad_streaming, "triad", 3.0 * static_cast<double>(bytes));
    if (copy > result.copy_gbps) {
      result.copy_gbps = copy;
      result.copy_stores = copy_stores;
    }
    if (triad > result.triad_gbps) {
      result.triad_gbps = triad;
      result.triad_stores = triad_stores;
    }
    result.copy_low_gbps = std::min(result.copy_low_gbps, copy);
    result.triad_low_gbps = std::min(result.triad_low_gbps, triad);
    if (on_round) on_round(round + 1, calibration_rounds, triad);
  }
  check_stream_results(a, b, c, elements, calibration_rounds);
  result.timestamp =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
          .count();
  return result;
}

namespace {

std::filesystem::path calibration_file() {
  return io::cache_directory() / "calibration.json";
}
std::string key_of(const std::string& backend, const std::string& device) {
  return backend + "|" + device;
}

/// The cache file's object, or an empty one; a corrupt file is reported (`corrupt` set) and left as it is.
nlohmann::json read_calibrations(bool& corrupt) {
  corrupt = false;
  std::error_code ec;
  if (!std::filesystem::exists(calibration_file(), ec)) return nlohmann::json::object();
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(
        io::read_file(calibration_file(), io::max_small_file_bytes, "calibration cache"), nullptr, false);
  } catch (const usage_error& e) {
    doc = nlohmann::json::value_t::discarded;
  }
  if (doc.is_discarded() || !doc.is_object()) {
    corrupt = true;
    fmt::print(stderr, "kbench: ignoring corrupt calibration cache {}\n", calibration_file().string());
    return nlohmann::json::object();
  }
  return doc;
}

}  // namespace

namespace {

nlohmann::json calibration_to_json(const calibration& c) {
  return {{"backend", c.backend},
          {"device", c.device},
          {"elements", c.elements},
          {"copy_gbps", c.copy_gbps},
          {"triad_gbps", c.triad_gbps},
          {"copy_low_gbps", c.copy_low_gbps},
          {"triad_low_gbps", c.triad_low_gbps},
          {"rounds", c.rounds},
          {"copy_stores", c.copy_stores},
          {"triad_stores", c.triad_stores},
          {"timestamp", c.timestamp},
          {"source", c.source}};
}

/// The whole number `j[name]` as a T; kbench::error when it is not one, or not one a T holds (nlohmann's own
/// conversion of 3.4e67 to an unsigned is undefined behaviour).
template <class T>
T whole_number(const nlohmann::json& j, const char* name) {
  const nlohmann::json& v = j.at(name);
  if (v.is_number_unsigned() && std::in_range<T>(v.get<std::uint64_t>()))
    return static_cast<T>(v.get<std::uint64_t>());
  if (v.is_number_integer() && std::in_range<T>(v.get<std::int64_t>()))
    return static_cast<T>(v.get<std::int64_t>());
  KBENCH_THROW("'{}' is {}, not a whole number from {} to {}", name, v.dump(), std::numeric_limits<T>::min(),
               std::numeric_limits<T>::max());
}

calibration calibration_from_json(const nlohmann::json& j) {
  calibration c;
  c.backend = j.at("backend");
  c.device = j.at("device");
  c.elements = whole_number<std::size_t>(j, "elements");
  c.copy_gbps = j.at("copy_gbps");
  c.triad_gbps = j.at("triad_gbps");
  // Entries written before calibrations had rounds: one measurement, no spread.
  c.copy_low_gbps = j.value("copy_low_gbps", c.copy_gbps);
  c.triad_low_gbps = j.value("triad_low_gbps", c.triad_gbps);
  c.rounds = j.contains("rounds") ? whole_number<int>(j, "rounds") : 1;
  // Entries written before the store kinds were compared: normal stores only.
  c.copy_stores = j.value("copy_stores", std::string(stores_normal));
  c.triad_stores = j.value("triad_stores", std::string(stores_normal));
  c.timestamp = whole_number<std::int64_t>(j, "timestamp");
  c.source = j.value("source", std::string("kbench calibrate"));
  return c;
}

/// The device's calibrations, oldest first: its "history", or (a cache written before there was one) the
/// entry itself.
std::vector<calibration> calibrations_of(const nlohmann::json& entry) {
  std::vector<calibration> all;
  if (entry.contains("history")) {
    for (const auto& h : entry.at("history")) all.push_back(calibration_from_json(h));
  } else {
    all.push_back(calibration_from_json(entry));
  }
  return all;
}

std::int64_t now_s() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

std::optional<calibration> cached_calibration(const device_info& device) {
  bool corrupt = false;
  const auto doc = read_calibrations(corrupt);
  const auto key = key_of(std::string(to_string(device.backend)), device.name);
  if (!doc.contains(key)) return std::nullopt;
  try {
    const auto oldest = now_s() - static_cast<std::int64_t>(calibration_max_age_days * 86400);
    std::optional<calibration> best;
    int young = 0;
    for (const calibration& c : calibrations_of(doc.at(key))) {
      if (c.timestamp < oldest) continue;
      ++young;
      if (!best || c.triad_gbps > best->triad_gbps) best = c;
    }
    if (best) best->calibrations = young;
    return best;
  } catch (const std::exception& e) {
    fmt::print(stderr, "kbench: ignoring a malformed calibration entry for {}: {}\n", key, e.what());
    return std::nullopt;
  }
}

void store_calibration(const calibration& c) {
  bool corrupt = false;
  auto doc = read_calibrations(corrupt);
  // Never overwrite what we could not parse: it may hold other devices' calibrations a person wants back.
  if (corrupt) {
    const std::string moved = io::move_aside(calibration_file());
    fmt::print(stderr, "kbench: corrupt calibration cache {}: {}\n", calibration_file().string(), moved);
    std::error_code ec;
    if (std::filesystem::exists(calibration_file(), ec) || ec) {
      KBENCH_THROW("calibration not stored: {} does not parse and {}", calibration_file().string(), moved);
    }
  }
  const std::string key = key_of(c.backend, c.device);
  std::vector<calibration> all;
  if (doc.contains(key)) {
    try {
      all = calibrations_of(doc.at(key));
    } catch (const std::exception& e) {  // a malformed entry of this device: replaced, and said
      fmt::print(stderr, "kbench: replacing a malformed calibration entry for {}: {}\n", key, e.what());
    }
  }
  all.push_back(c);
  if (all.size() > calibrations_kept) all.erase(all.begin(), all.end() - calibrations_kept);
  // The newest at the top level, as caches before the history had it; every calibration in "history".
  nlohmann::json entry = calibration_to_json(c);
  entry["history"] = nlohmann::json::array();
  for (const auto& h : all) entry["history"].push_back(calibration_to_json(h));
  doc[key] = std::move(entry);
  std::filesystem::create_directories(io::cache_directory());
  io::write_file_atomically(calibration_file(), doc.dump(2) + "\n");
}

std::optional<calibration> raise_peak(const calibration& peak, double triad_gbps, const std::string& source) {
  if (!(triad_gbps > peak.triad_gbps)) return std::nullopt;
  calibration raised = peak;
  raised.triad_gbps = raised.triad_low_gbps = triad_gbps;
  raised.rounds = 1;
  raised.source = source;
  raised.timestamp = now_s();
  store_calibration(raised);
  raised.calibrations = peak.calibrations + 1;
  return raised;
}

}  // namespace kbench::suite
