// The benchmarking primitives (see bench.hpp): every sample uses the synchronized protocol and every wait is
// verified with a status query (sync.hpp).

#include <kbench/bench.hpp>
#include <kbench/sync.hpp>

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <limits>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace kbench {
namespace {

using clock_type = std::chrono::steady_clock;

double elapsed_ms(clock_type::time_point start, clock_type::time_point stop) {
  return std::chrono::duration<double, std::milli>(stop - start).count();
}

/// Calls `target` once and syncs on its own result (warm-up). Returns 1 when the sync returned early, after
/// draining the work so that it cannot run into the next sample.
int synced_call(const bench_target& target) {
  const call_result r = target.call();
  if (sync_and_check(r) > 0) {
    drain({&r, 1});
    return 1;
  }
  return 0;
}

void flush_before_sample(const bench_target& target, std::size_t flush_bytes) {
  if (target.flush_cache) {
    target.flush_cache();
  } else {
    flush_host_cache(flush_bytes);
  }
}

/// Half the width of the 99% CI of the median relative to the median [fraction] (nvbench's noise criterion).
double relative_noise(std::span<const double> samples) {
  const summary s = summarize(samples);
  const double half_width = (s.median_ci_high - s.median_ci_low) / 2;
  if (s.median <= 0) {
    return half_width == 0 ? 0 : std::numeric_limits<double>::infinity();
  }
  return half_width / s.median;
}

/// Parses a sysfs cache size such as "32768K", "1M" or "512" [bytes]; 0 if malformed.
std::size_t parse_cache_size(const std::string& text) {
  std::size_t pos = 0;
  unsigned long long value = 0;
  try {
    value = std::stoull(text, &pos);
  } catch (const std::exception&) {
    return 0;
  }
  std::size_t scale = 1;
  if (pos < text.size()) {
    switch (text[pos]) {
      case 'K':
      case 'k':
        scale = std::size_t{1} << 10;
        break;
      case 'M':
      case 'm':
        scale = std::size_t{1} << 20;
        break;
      case 'G':
      case 'g':
        scale = std::size_t{1} << 30;
        break;
      default:
        break;
    }
  }
  return static_cast<std::size_t>(value) * scale;
}

/// A data cache of cpu0 as sysfs lists it.
struct cache_level {
  int level = 0;
  std::size_t bytes = 0;
  std::size_t sharing_cpus = 0;  // cpus in its shared_cpu_list; 0 if unknown
};

/// The data caches of cpu0 that sysfs lists.
std::vector<cache_level> read_cache_levels() {
  std::vector<cache_level> levels;
  for (int index = 0; index < 16; ++index) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/";
    std::ifstream level_file(dir + "level");
    std::ifstream size_file(dir + "size");
    std::ifstream type_file(dir + "type");
    std::ifstream shared_file(dir + "shared_cpu_list");
    int level = 0;
    std::string size_text;
    std::string type = "Unified";
    std::string shared_text;
    if (!(level_file >> level) || !(size_file >> size_text)) {
      continue;  // indices may be sparse; an absent one is skipped rather than ending the scan
    }
    type_file >> type;
    shared_file >> shared_text;
    const std::size_t bytes = parse_cache_size(size_text);
    if (bytes > 0 && type != "Instruction") levels.push_back({level, bytes, count_cpu_list(shared_text)});
  }
  return levels;
}

/// The last-level cache (the largest of the highest level); bytes 0 if sysfs lists none.
cache_level read_last_level_cache() {
  cache_level last;
  last.level = -1;
  for (const cache_level& c : read_cache_levels()) {
    if (c.level > last.level || (c.level == last.level && c.bytes > last.bytes)) last = c;
  }
  return last;
}

std::size_t read_last_level_cache_bytes() {
  const std::size_t bytes = read_last_level_cache().bytes;
  return bytes > 0 ? bytes : std::size_t{32} << 20;
}

/// The largest cache below the last level [bytes] (on x86 the L2, each core's own); 1 MiB if none is listed.
std::size_t read_private_cache_bytes() {
  const auto levels = read_cache_levels();
  int last_level = -1;
  for (const cache_level& c : levels) last_level = std::max(last_level, c.level);
  std::size_t largest = 0;
  for (const cache_level& c : levels) {
    if (c.level < last_level) largest = std::max(largest, c.bytes);
  }
  return largest > 0 ? largest : std::size_t{1} << 20;
}

/// Writes a new value into every byte of `buffer`, then reads one byte per 64-byte line into `sink`, so that
/// neither pass can be optimized away.
void write_and_read(std::span<std::uint8_t> buffer, std::uint8_t value, std::atomic<std::uint64_t>& sink) {
  std::fill(buffer.begin(), buffer.end(), value);
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < buffer.size(); i += 64) sum += buffer[i];
  sink.fetch_add(sum, std::memory_order_relaxed);
}

std::atomic<std::uint64_t> flush_sink{0};

/// Flushes the private caches of every cpu the calling thread may use, in parallel, each from a thread bound
/// to it. One process-wide set of buffers (page faults paid once), so concurrent flushes take turns.
void flush_every_cores_private_caches() {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0 || CPU_COUNT(&allowed) <= 1) return;
  static const std::size_t bytes = 2 * read_private_cache_bytes();  // twice: an LRU-like cache keeps none
  static std::mutex mutex;
  static std::vector<std::vector<std::uint8_t>> buffers;
  static std::uint8_t generation = 0;
  const std::lock_guard lock(mutex);
  ++generation;
  // Sized before any thread starts: each holds a reference into it.
  if (buffers.size() < static_cast<std::size_t>(CPU_COUNT(&allowed))) {
    buffers.resize(static_cast<std::size_t>(CPU_COUNT(&allowed)), std::vector<std::uint8_t>(bytes));
  }
  std::vector<std::thread> threads;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &allowed)) continue;
    std::vector<std::uint8_t>& buffer = buffers[threads.size()];
    threads.emplace_back([&buffer, cpu, value = generation] {
      cpu_set_t one;
      CPU_ZERO(&one);
      CPU_SET(cpu, &one);
      if (pthread_setaffinity_np(pthread_self(), sizeof(one), &one) != 0) return;
      write_and_read(buffer, value, flush_sink);
    });
  }
  for (std::thread& t : threads) t.join();
}

}  // namespace

double bench_result::value(return_mode mode) const {
  switch (mode) {
    case return_mode::min:
      return stats.min;
    case return_mode::max:
      return stats.max;
    case return_mode::mean:
      return stats.mean;
    case return_mode::median:
    case return_mode::all:
      return stats.median;
  }
  return stats.median;
}

std::vector<double> bench_result::quantiles(std::span<const double> qs) const {
  std::vector<double> out;
  out.reserve(qs.size());
  for (double q : qs) {
    out.push_back(quantile(samples_ms, q));
  }
  return out;
}

double time_one_call(const bench_target& target, int& violations) {
  // Untimed: whatever ran before (another target, a cache flush) must not overlap this sample.
  if (target.barrier) {
    target.barrier();
  }
  const auto start = clock_type::now();
  const call_result r = target.call();
  const int incomplete = sync_and_check(r);
  const auto stop = clock_type::now();
  // `r` (and its outputs) are released only after the stop: teardown stays outside the window.
  if (incomplete > 0) {
    ++violations;  // one early-returning sync, however many of its events were still running
    drain({&r, 1});
  }
  return elapsed_ms(start, stop);
}

int compute_repeat(const bench_target& target, double target_ms, int min_repeat, int max_repeat) {
  constexpr int estimate_calls = 5;
  // Calls this slow get min_repeat whatever the rest of the estimate says (unless those were much faster), so
  // the estimate stops after two of them: three calls of bmm [8,512,512,512] on PoCL are 1-2 s per config.
  // Two, not one: a first call may still pay for a program build or page faults.
  constexpr int slow_calls_enough = 2;
  const double slow_call_ms = target_ms / std::max(min_repeat, 1);
  // Each estimate runs until the work has really finished (drained by status polling), not until the sync
  // returned: a sync that returns early would make every call look free and ask for max_repeat calls of a
  // kernel that takes seconds. With a correct sync the drain finds everything complete and adds nothing.
  // Violations are counted by the measurement proper, not here.
  double total_ms = 0;
  int calls = 0;
  int slow = 0;
  while (calls < estimate_calls && slow < slow_calls_enough) {
    if (target.barrier) {
      target.barrier();
    }
    const auto start = clock_type::now();
    const call_result r = target.call();
    (void)sync_and_check(r);
    drain({&r, 1});
    const double call_ms = elapsed_ms(start, clock_type::now());
    total_ms += call_ms;
    ++calls;
    if (call_ms >= slow_call_ms) ++slow;
  }
  const double estimate_ms = total_ms / calls;
  if (!(estimate_ms > 0)) {
    return max_repeat;
  }
  // Clamped as a double first: a tiny estimate would overflow int.
  const double repeat = std::clamp(std::floor(target_ms / estimate_ms), static_cast<double>(min_repeat),
                                   static_cast<double>(max_repeat));
  return static_cast<int>(repeat);
}

bench_result do_bench(const bench_target& target, const bench_options& options) {
  bench_result result;
  result.name = target.name;

  // Warm-up: at least one call, then until the budget is spent; each synced on its own result.
  const auto warmup_start = clock_type::now();
  do {
    result.sync_violations += synced_call(target);
  } while (elapsed_ms(warmup_start, clock_type::now()) < options.warmup_ms);

  const std::size_t flush_bytes = options.flush_bytes != 0 ? options.flush_bytes : last_level_flush_bytes();
  auto take_sample = [&] {
    if (options.flush_cache) {
      flush_before_sample(target, flush_bytes);
    }
    result.samples_ms.push_back(time_one_call(target, result.sync_violations));
  };

  if (!options.stop) {
    const int repeat = compute_repeat(target, options.rep_ms);
    result.samples_ms.reserve(static_cast<std::size_t>(repeat));
    for (int i = 0; i < repeat; ++i) {
      take_sample();
    }
  } else {
    const noise_stop& stop = *options.stop;
    const auto start = clock_type::now();
    // The noise criterion sorts all samples, so it is checked at geometrically spaced counts (every ~5 %),
    // which keeps the whole loop O(n log n) even for a timeout of millions of fast samples.
    std::size_t next_check = std::max<std::size_t>(stop.min_samples, 1);
    for (;;) {
      take_sample();
      const double elapsed = elapsed_ms(start, clock_type::now());
      const std::size_t count = result.samples_ms.size();
      if (count >= next_check && elapsed >= stop.min_time_ms) {
        if (relative_noise(result.samples_ms) <= stop.max_relative_noise) {
          result.stopped_by_noise = true;
          break;
        }
        next_check = count + std::max<std::size_t>(1, count / 20);
      }
      if (elapsed >= stop.timeout_ms) {
        break;
      }
    }
  }
  result.stats = summarize(result.samples_ms);
  return result;
}

std::vector<bench_result> interleaved_bench(std::span<const bench_target> targets, int repeat, int warmup,
                                            int calls_per_turn) {
  std::vector<bench_result> results(targets.size());
  for (std::size_t t = 0; t < targets.size(); ++t) {
    results[t].name = targets[t].name;
    results[t].samples_ms.reserve(static_cast<std::size_t>(std::max(repeat, 0)));
  }
  for (int round = 0; round < warmup; ++round) {
    for (std::size_t t = 0; t < targets.size(); ++t) {
      results[t].sync_violations += synced_call(targets[t]);
    }
  }
  const int turn = std::max(calls_per_turn, 1);
  const bool rewarm = turn > 1 && targets.size() > 1;  // see the header: the first call after a switch
  for (int done = 0; done < repeat; done += turn) {
    const int calls = std::min(turn, repeat - done);
    for (std::size_t t = 0; t < targets.size(); ++t) {
      if (rewarm) results[t].sync_violations += synced_call(targets[t]);
      for (int c = 0; c < calls; ++c) {
        results[t].samples_ms.push_back(time_one_call(targets[t], results[t].sync_violations));
      }
    }
  }
  for (bench_result& r : results) {
    r.stats = summarize(r.samples_ms);
  }
  return results;
}

int interleaved_calls_per_turn(double slowest_ms, int repeat) {
  constexpr int min_calls = 4;    // timed calls per turn at least
  constexpr double turn_ms = 20;  // [ms] how long a turn lasts at least, within 4 turns per target
  constexpr int min_turns = 4;    // turns per target at least
  if (repeat < 2 * min_calls) return 1;
  if (!(slowest_ms > 0)) return min_calls;
  const double fill = std::min(turn_ms / slowest_ms, static_cast<double>(repeat / min_turns));
  return std::max(min_calls, static_cast<int>(fill));
}

void flush_host_cache(std::size_t bytes) {
  if (bytes == 0) {
    bytes = last_level_flush_bytes();
  }
  flush_every_cores_private_caches();
  // Kept between calls (per thread, so concurrent flushes do not race) to pay the page faults once.
  thread_local std::vector<std::uint8_t> buffer;
  thread_local std::uint8_t generation = 0;
  if (buffer.size() < bytes) {
    buffer.resize(bytes);
  }
  ++generation;  // a new value each time, so that every line is really written
  write_and_read(std::span(buffer).first(bytes), generation, flush_sink);
}

std::size_t last_level_cache_bytes() {
  static const std::size_t bytes = read_last_level_cache_bytes();
  return bytes;
}

std::size_t count_cpu_list(std::string_view list) {
  std::size_t count = 0;
  while (!list.empty()) {
    const std::size_t comma = list.find(',');
    const std::string_view item = list.substr(0, comma);
    list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
    const std::size_t dash = item.find('-');
    unsigned long first = 0;
    unsigned long last = 0;
    const auto read = [](std::string_view text, unsigned long& value) {
      const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
      return error == std::errc{} && end == text.data() + text.size() && !text.empty();
    };
    if (!read(item.substr(0, dash), first)) return 0;
    last = first;
    if (dash != std::string_view::npos && !read(item.substr(dash + 1), last)) return 0;
    if (last < first) return 0;
    count += last - first + 1;
  }
  return count;
}

std::size_t cache_share_bytes(std::size_t cache_bytes, std::size_t sharing_cpus) {
  if (sharing_cpus == 0) return cache_bytes;
  return std::min(cache_bytes, sharing_cpus * max_cache_bytes_per_cpu);
}

std::size_t cache_flush_bytes(std::size_t cache_bytes, std::size_t sharing_cpus) {
  return std::min(cache_bytes, 2 * cache_share_bytes(cache_bytes, sharing_cpus));
}

std::size_t last_level_flush_bytes() {
  static const std::size_t bytes = [] {
    const cache_level last = read_last_level_cache();
    return last.bytes > 0 ? cache_flush_bytes(last.bytes, last.sharing_cpus) : last_level_cache_bytes();
  }();
  return bytes;
}

std::size_t last_level_cache_share_bytes() {
  static const std::size_t bytes = [] {
    const cache_level last = read_last_level_cache();
    return last.bytes > 0 ? cache_share_bytes(last.bytes, last.sharing_cpus) : last_level_cache_bytes();
  }();
  return bytes;
}

}  // namespace kbench
