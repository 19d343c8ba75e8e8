#pragma once
// What the results history holds: runs, series (one measured quantity over time) and their points.

#include <compare>
#include <cstdint>
#include <string>
#include <vector>

namespace kbench::history {

/// Identifies one series: the same quantity measured the same way, night after night.
struct series_key {
  std::string runner_name;     // runners[0].extra_info.backend (before: .name): the backend ("opencl")
  std::string runner_type;     // runners[0].type: the device ("pthread-AMD EPYC")
  std::string backend;         // benchmark.extra_info.backend
  std::string kernel;          // model.name
  std::string shape;           // benchmark.extra_info.shape ("[1024,256]")
  std::string implementation;  // model.backend ("kbench-opencl", "torch")
  std::string metric;          // metric.name ("latency_ms")
  auto operator<=>(const series_key&) const = default;
};

/// One `kbench run` (or one timestamp of a results file).
struct run_info {
  std::int64_t timestamp = 0;  // [seconds since the Unix epoch]
  std::string commit;          // the commit/version that produced it ("" when unknown)
  std::string version;         // kbench version when the records carry it ("" otherwise)
  std::string host;            // runners[0].extra_info.hostname
};

/// One series' value in one run.
struct point {
  series_key series;
  double median = 0;            // median of the samples [the metric's unit]
  std::vector<double> samples;  // metric.benchmark_values, as recorded
};

/// One run and its points, ready to store.
struct run_records {
  run_info run;
  std::vector<point> points;
};

/// One stored point of a series with the run it belongs to.
struct stored_point {
  std::int64_t run_id = 0;
  run_info run;
  double median = 0;
  std::vector<double> samples;  // empty unless asked for
};

/// A series and its points, oldest run first.
struct series_history {
  series_key key;
  std::vector<stored_point> points;
};

}  // namespace kbench::history
