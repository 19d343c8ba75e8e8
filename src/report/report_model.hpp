#pragma once
// The report's view of the results (private to src/report): the series of each kernel by implementation,
// device, shape and metric, the order shapes and implementations are drawn in, their colours, and the
// detector's verdicts as drawn.

#include <kbench/history/detector.hpp>
#include <kbench/history/store.hpp>
#include <kbench/report/html_report.hpp>

#include "report/svg_axis.hpp"
#include "report/svg_line_chart.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <ctime>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace kbench::report::detail {

using history::series_history;
using history::series_key;
using history::verdict;

struct run_id {
  std::int64_t timestamp = 0;  // [s since the epoch]
  std::string host;
  auto operator<=>(const run_id&) const = default;
};

/// `timestamp` [s since the epoch] in UTC with strftime's `format`.
[[nodiscard]] std::string utc(std::int64_t timestamp, const char* format);

/// The number of elements of a shape such as "[1024,256]" (the product of its numbers); +inf when it has
/// none. Orders shapes by size rather than as text ("[4096]" before "[1048576]").
[[nodiscard]] double shape_elements(const std::string& shape);

[[nodiscard]] bool shape_less(const std::string& a, const std::string& b);

/// kbench's implementations first, then other ones, the torch baseline last.
[[nodiscard]] int implementation_rank(const std::string& implementation);

/// An implementation on one device: everything in a series key but kernel, shape and metric.
struct variant {
  std::string implementation, runner_name, runner_type, backend;
  auto operator<=>(const variant&) const = default;
};

[[nodiscard]] variant variant_of(const series_key& key);

[[nodiscard]] bool variant_less(const variant& a, const variant& b);

/// One kernel's series, indexed by variant, shape and metric.
struct kernel_view {
  std::string name;
  std::vector<std::string> shapes;  // smallest first
  std::vector<variant> variants;    // kbench first, torch last
  std::vector<run_id> runs;         // every run with a point of this kernel, oldest first
  std::map<std::tuple<std::size_t, std::string, std::string>, const series_history*> series;

  const series_history* find(std::size_t v, const std::string& shape, const std::string& metric) const {
    const auto it = series.find({v, shape, metric});
    return it == series.end() ? nullptr : it->second;
  }
  /// The median of `metric` of variant v at `shape` in `run`; nullopt when that run has no such point.
  std::optional<double> value_in_run(std::size_t v, const std::string& shape, std::string_view metric,
                                     const history::run_info& run) const {
    const auto* s = find(v, shape, std::string(metric));
    if (s == nullptr) return std::nullopt;
    for (const auto& p : s->points) {
      if (p.run.timestamp == run.timestamp && p.run.host == run.host) return p.median;
    }
    return std::nullopt;
  }
  std::size_t run_index(const history::run_info& run) const {
    const run_id id{run.timestamp, run.host};
    return static_cast<std::size_t>(std::lower_bound(runs.begin(), runs.end(), id) - runs.begin());
  }
  /// The variant's name on the page: the implementation, plus the device when two variants share it.
  std::string label(std::size_t v) const {
    const auto& x = variants[v];
    const bool shared = std::count_if(variants.begin(), variants.end(), [&](const variant& o) {
                          return o.implementation == x.implementation;
                        }) > 1;
    return shared ? fmt::format("{} ({})", x.implementation, x.runner_type) : x.implementation;
  }
  /// A bar's label: the shape, plus the variant when the kernel has several besides torch (a history with
  /// results of its cpu and opencl implementations), so that two bars of one shape are told apart.
  std::string bar_label(const std::string& shape, std::size_t v) const {
    const bool many = std::count_if(variants.begin(), variants.end(),
                                    [](const variant& o) { return o.implementation != "torch"; }) > 1;
    return many ? fmt::format("{} {}", shape, label(v)) : shape;
  }
};

[[nodiscard]] std::vector<kernel_view> kernels_of(const std::vector<series_history>& all);

/// The CSS class that colours an implementation, the same in every section: kbench's first, torch grey.
class palette {
 public:
  explicit palette(const std::vector<kernel_view>& kernels) {
    std::vector<std::string> names;
    for (const auto& k : kernels) {
      for (const auto& v : k.variants) {
        if (v.implementation != "torch" &&
            std::find(names.begin(), names.end(), v.implementation) == names.end())
          names.push_back(v.implementation);
      }
    }
    std::sort(names.begin(), names.end(), [](const std::string& a, const std::string& b) {
      return std::pair(implementation_rank(a), a) < std::pair(implementation_rank(b), b);
    });
    for (std::size_t i = 0; i < names.size(); ++i) m_classes[names[i]] = fmt::format("impl-{}", i % 4);
  }
  std::string operator()(const std::string& implementation) const {
    const auto it = m_classes.find(implementation);
    return it == m_classes.end() ? "impl-torch" : it->second;
  }

 private:
  std::map<std::string, std::string> m_classes;
};

/// The detector's verdict on every point of a series, as if judged on the night it arrived (the points
/// up to and including it).
[[nodiscard]] std::vector<history::detection> verdicts_over_time(const series_history& s,
                                                                 const history::detector_options& options);

[[nodiscard]] svg::point_mark mark_of(verdict v);

/// "regression: +30.1% against 0.0946" or "ok" or "insufficient data".
[[nodiscard]] std::string verdict_text(const history::detection& d);

[[nodiscard]] std::string anchor_of(const std::string& kernel);

[[nodiscard]] std::string run_text(const history::run_info& run);

/// A short line of colour swatches: the implementations drawn, and what the rings mean.
[[nodiscard]] std::string legend(const kernel_view& k, const palette& colour);

/// The newest verdict of a latency line the page draws, for the summary of flags at its top.
struct flag {
  std::string kernel, shape, implementation, text;
  verdict status;
};

}  // namespace kbench::report::detail
