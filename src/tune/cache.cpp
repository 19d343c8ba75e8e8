#include <kbench/error.hpp>
#include <kbench/io/atomic_file.hpp>
#include <kbench/io/directories.hpp>
#include <kbench/io/json_v3.hpp>
#include <kbench/io/move_aside.hpp>
#include <kbench/io/read_file.hpp>
#include <kbench/tune/cache.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <fstream>
#include <sstream>
#include <system_error>

namespace kbench::tune {

namespace {

using json = nlohmann::json;

std::string utc_now_iso8601() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

/// A file name part: the kernel name with anything but [A-Za-z0-9_-] replaced, so no key escapes the cache.
std::string safe_name(const std::string& text) {
  std::string out = text.empty() ? std::string("_") : text;
  for (char& c : out) {
    const bool plain =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
    if (!plain) c = '_';
  }
  return out;
}

/// The entry file's text: nullopt when there is none; `why` set when it exists and cannot be read.
std::optional<std::string> read_text(const std::filesystem::path& path, std::string& why) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return std::nullopt;
  try {
    return io::read_file(path, io::max_small_file_bytes, "tuning-cache entry");
  } catch (const usage_error& e) {
    why = e.what();
    return std::string();
  }
}

/// Parses one entry file; nullopt with `why` set when it is not a cache entry.
std::optional<cache_entry> parse_entry(const std::string& text, std::string& why) {
  const json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) {
    why = text.empty() ? "empty file" : "not valid JSON (truncated?)";
    return std::nullopt;
  }
  try {
    cache_entry entry = doc.get<cache_entry>();
    return entry;
  } catch (const std::exception& e) {
    why = fmt::format("not a tuning-cache entry ({})", e.what());
    return std::nullopt;
  }
}

}  // namespace

std::vector<std::pair<std::string, std::string>> cache_key::fields() const {
  return {{"kernel", kernel},           {"shape", shape},           {"dtype", dtype},
          {"backend", backend},         {"device", device},         {"driver", driver},
          {"source_hash", source_hash}, {"space_hash", space_hash}, {"kbench_version", kbench_version}};
}

std::string cache_key::digest() const {
  // FNV-1a over "name=value\n" lines: stable across runs, platforms and standard libraries.
  std::uint64_t hash = 0xcbf29ce484222325ull;
  for (const auto& [name, value] : fields()) {
    for (const char c : name + "=" + value + "\n") {
      hash ^= static_cast<unsigned char>(c);
      hash *= 0x100000001b3ull;
    }
  }
  return fmt::format("{:016x}", hash);
}

void to_json(json& j, const cache_key& k) {
  j = json::object();
  for (const auto& [name, value] : k.fields()) j[name] = value;
}

void from_json(const json& j, cache_key& k) {
  k.kernel = j.at("kernel").get<std::string>();
  k.shape = j.at("shape").get<std::string>();
  k.dtype = j.at("dtype").get<std::string>();
  k.backend = j.at("backend").get<std::string>();
  k.device = j.at("device").get<std::string>();
  k.driver = j.at("driver").get<std::string>();
  k.source_hash = j.at("source_hash").get<std::string>();
  k.space_hash = j.at("space_hash").get<std::string>();
  k.kbench_version = j.at("kbench_version").get<std::string>();
}

void to_json(json& j, const cache_entry& e) {
  json log = json::array();
  for (const auto& l : e.log) {
    json item = {{"config", json::parse(to_json_text(l.values))},
                 {"status", std::string(to_string(l.status))}};
    if (l.status == eval_status::ok) item["time_ms"] = l.time_ms;
    if (l.retime_ms > 0) item["retime_ms"] = l.retime_ms;
    if (!l.message.empty()) item["message"] = l.message;
    log.push_back(std::move(item));
  }
  j = {{"format", "kbench-tuning-cache/1"},
       {"key", e.key},
       {"strategy", e.strategy},
       {"seed", e.seed},
       {"complete", e.complete},
       {"best", e.best ? json::parse(to_json_text(*e.best)) : json(nullptr)},
       {"best_time_ms", e.best_time_ms},
       {"tuning_s", e.tuning_s},
       {"updated_at", e.updated_at},
       {"log", std::move(log)}};
}

void from_json(const json& j, cache_entry& e) {
  if (j.at("format").get<std::string>() != "kbench-tuning-cache/1") {
    throw std::runtime_error("unknown format " + j.at("format").dump());
  }
  e.key = j.at("key").get<cache_key>();
  e.strategy = j.at("strategy").get<std::string>();
  e.seed = j.at("seed").get<std::uint64_t>();
  e.complete = j.at("complete").get<bool>();
  e.best.reset();
  if (!j.at("best").is_null()) e.best = parse_config_text(j.at("best").dump());
  e.best_time_ms = j.at("best_time_ms").get<double>();
  e.tuning_s = j.at("tuning_s").get<double>();
  e.updated_at = j.at("updated_at").get<std::string>();
  e.log.clear();
  for (const json& item : j.at("log")) {
    logged_evaluation l;
    l.values = parse_config_text(item.at("config").dump());
    l.status = parse_eval_status(item.at("status").get<std::string>());
    if (l.status == eval_status::ok) l.time_ms = item.at("time_ms").get<double>();
    l.retime_ms = item.value("retime_ms", 0.0);
    if (item.contains("message")) l.message = item.at("message").get<std::string>();
    e.log.push_back(std::move(l));
  }
}

std::filesystem::path tuning_cache::default_directory() {
  return io::cache_directory();
}

tuning_cache::tuning_cache(std::filesystem::path directory) : m_directory(std::move(directory)) {}

std::filesystem::path tuning_cache::path_of(const cache_key& key) const {
  return m_directory / "tuning" / safe_name(key.kernel) / (key.digest() + ".json");
}

cache_lookup tuning_cache::read(const cache_key& key) const {
  cache_lookup result;
  const std::filesystem::path path = path_of(key);
  std::string why;
  const std::optional<std::string> text = read_text(path, why);
  if (!text) return result;  // a plain miss
  std::optional<cache_entry> entry;
  if (why.empty()) entry = parse_entry(*text, why);
  if (entry && entry->key != key) {
    entry.reset();
    why = "holds another key (a digest collision or a hand-edited file)";
  }
  if (!entry) {
    result.warnings.push_back(
        fmt::format("tuning-cache entry {} is unreadable: {}; ignored and tuned again, {}", path.string(),
                    why, io::move_aside(path)));
    return result;
  }
  result.entry = std::move(entry);
  return result;
}

void tuning_cache::write(const cache_entry& entry) const {
  const std::filesystem::path path = path_of(entry.key);
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  if (ec)
    KBENCH_THROW("cannot create the tuning-cache directory {}: {}", path.parent_path().string(),
                 ec.message());
  cache_entry stamped = entry;
  stamped.updated_at = utc_now_iso8601();
  io::write_file_atomically(path, json(stamped).dump(1) + "\n");
}

std::vector<cache_entry> tuning_cache::entries() const {
  std::vector<cache_entry> found;
  std::error_code ec;
  const std::filesystem::path root = m_directory / "tuning";
  if (!std::filesystem::is_directory(root, ec)) return found;
  for (auto it = std::filesystem::recursive_directory_iterator(root, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (!it->is_regular_file(ec) || it->path().extension() != ".json") continue;
    std::string why;
    const std::optional<std::string> text = read_text(it->path(), why);
    if (!text || !why.empty()) continue;
    if (auto entry = parse_entry(*text, why); entry && entry->complete) found.push_back(std::move(*entry));
  }
  return found;
}

std::string tuning_cache::describe_miss(const cache_key& key, std::size_t max_entries) const {
  std::string text = fmt::format("no tuning-cache entry for this key in {} (file {}):\n",
                                 m_directory.string(), path_of(key).filename().string());
  const auto wanted = key.fields();
  for (const auto& [name, value] : wanted) text += fmt::format("    {:<15} {}\n", name, value);

  // Nearest = most fields equal; only entries of the same kernel are candidates.
  std::vector<std::pair<std::size_t, cache_entry>> candidates;
  for (cache_entry& entry : entries()) {
    if (entry.key.kernel != key.kernel) continue;
    const auto have = entry.key.fields();
    std::size_t differing = 0;
    for (std::size_t i = 0; i < have.size(); ++i) differing += have[i].second != wanted[i].second ? 1 : 0;
    candidates.emplace_back(differing, std::move(entry));
  }
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  if (candidates.empty()) {
    text += fmt::format(
        "  no cached entry for kernel '{}' at all: run `kbench run --effort quick|full` first\n", key.kernel);
    return text;
  }
  const std::size_t shown = std::min(max_entries, candidates.size());
  text += fmt::format("  nearest cached entries of '{}' ({} of {}), fields that differ (cached -> wanted):\n",
                      key.kernel, shown, candidates.size());
  for (std::size_t c = 0; c < shown; ++c) {
    const auto have = candidates[c].second.key.fields();
    text += fmt::format("  - {}.json:\n", candidates[c].second.key.digest());
    for (std::size_t i = 0; i < have.size(); ++i) {
      if (have[i].second != wanted[i].second) {
        text += fmt::format("      {:<15} {} -> {}\n", have[i].first, have[i].second, wanted[i].second);
      }
    }
  }
  return text;
}

}  // namespace kbench::tune
