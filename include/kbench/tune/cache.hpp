#pragma once
// The tuning cache: for each kernel x shape x device x code version, the best config found and the log of
// every config evaluated, so that a second run (`kbench run --assert-cache-hit`) measures tuned kernels
// without tuning again, and an interrupted tuning resumes where it stopped.
//
// Layout: <directory>/tuning/<kernel>/<key digest>.json, one entry per file, each written atomically (a
// temporary file renamed over the old one): two processes tuning into the same directory never leave a torn
// file, and the last complete write wins. A file that does not parse is reported, renamed to
// <name>.corrupt-<time> (never overwritten or deleted: it may hold the only copy of hours of tuning) and the
// entry is tuned again.

#include <kbench/config.hpp>
#include <kbench/tune/evaluation.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kbench::tune {

/// Everything a tuned config depends on. Two keys with one field different are different entries: a config
/// tuned for another device, driver, kernel source, space or kbench version is not reused.
struct cache_key {
  std::string kernel;          // "softmax_two_pass"
  std::string shape;           // "[1024,256]"
  std::string dtype;           // "float32" (kbench tensors are float32)
  std::string backend;         // "opencl"
  std::string device;          // device name
  std::string driver;          // driver / runtime version
  std::string source_hash;     // SHA-256 of the kernel folder + kernels/common (kernel_definition)
  std::string space_hash;      // tune::space::definition_hash_text()
  std::string kbench_version;  // KBENCH_VERSION

  /// (field name, value) in a fixed order, for JSON, messages and diffs.
  [[nodiscard]] std::vector<std::pair<std::string, std::string>> fields() const;
  /// 16 hex digits of a stable hash of every field: the entry's file name.
  [[nodiscard]] std::string digest() const;
  friend bool operator==(const cache_key&, const cache_key&) = default;
};

/// One evaluated config, as the log keeps it.
struct logged_evaluation {
  config values;
  eval_status status = eval_status::ok;
  double time_ms = 0;    // [ms] median synchronized wall latency, timed alone; 0 unless status is ok
  std::string message;   // why it failed, empty when ok
  double retime_ms = 0;  // [ms] its latest time interleaved with the search's best so far; 0: never re-timed
};

struct cache_entry {
  cache_key key;
  std::string strategy;    // the search that produced it
  std::uint64_t seed = 0;  // of the search
  bool complete = false;   // false while the search runs: the log is a checkpoint to resume from
  std::optional<config> best;
  double best_time_ms = 0;  // [ms] of `best` in the final interleaved re-timing
  std::vector<logged_evaluation> log;
  double tuning_s = 0;     // [s] wall time spent tuning, over every session that added to the log
  std::string updated_at;  // ISO 8601 UTC of the last write
};

void to_json(nlohmann::json& j, const cache_key& k);
void from_json(const nlohmann::json& j, cache_key& k);
void to_json(nlohmann::json& j, const cache_entry& e);
void from_json(const nlohmann::json& j, cache_entry& e);

/// What a lookup found. `warnings` says what was wrong with unreadable files met on the way.
struct cache_lookup {
  std::optional<cache_entry> entry;
  std::vector<std::string> warnings;
};

class tuning_cache {
 public:
  /// $KBENCH_CACHE_DIR, else ~/.cache/kbench (the calibration cache's directory).
  [[nodiscard]] static std::filesystem::path default_directory();

  explicit tuning_cache(std::filesystem::path directory);

  /// The entry stored under `key` (complete or not). A file that does not parse, or holds another key, is
  /// reported in the warnings, moved aside and not returned.
  [[nodiscard]] cache_lookup read(const cache_key& key) const;

  /// Stores `entry` under its key, atomically. Throws kbench::error when the directory cannot be written.
  void write(const cache_entry& entry) const;

  /// Every complete, readable entry (for the nearest-entry diff); unreadable files are skipped silently.
  [[nodiscard]] std::vector<cache_entry> entries() const;

  /// The message of `--assert-cache-hit` on a miss: the key looked up, field by field, and for the (up to
  /// `max_entries`) cached entries of the same kernel closest to it, the fields that differ.
  [[nodiscard]] std::string describe_miss(const cache_key& key, std::size_t max_entries = 3) const;

  [[nodiscard]] std::filesystem::path path_of(const cache_key& key) const;
  [[nodiscard]] const std::filesystem::path& directory() const { return m_directory; }

 private:
  std::filesystem::path m_directory;
};

}  // namespace kbench::tune
