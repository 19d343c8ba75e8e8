// The HTML report (see html_report.hpp): the page's structure and style; the charts are in svg_*.cpp.

#include <kbench/device.hpp>
#include <kbench/report/html_report.hpp>

#include "report/svg_axis.hpp"
#include "report/svg_bar_chart.hpp"
#include "report/svg_line_chart.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <ctime>
#include <limits>
#include <map>
#include <set>
#include <tuple>

namespace kbench::report {

namespace {

using history::series_history;
using history::series_key;
using history::verdict;

// The page's style: system fonts only (nothing is fetched), one column of kernel sections, charts side by
// side where the width allows.
constexpr const char* style = R"css(
* { box-sizing: border-box; }
body { font: 14px/1.45 "DejaVu Sans", "Liberation Sans", Arial, sans-serif; color: #1f2937; background: #f3f4f6;
       margin: 0; padding: 24px; }
main { max-width: 1232px; margin: 0 auto; }
h1 { font-size: 24px; margin: 0 0 4px; }
h2 { font-size: 20px; margin: 0; font-family: "DejaVu Sans Mono", monospace; }
h3 { font-size: 15px; margin: 18px 0 8px; color: #374151; }
header, section.kernel { background: #fff; border: 1px solid #e5e7eb; border-radius: 8px; padding: 16px 20px;
                         margin-bottom: 18px; }
.meta, .note, .empty, figcaption { color: #6b7280; }
.note, .empty { font-size: 12.5px; margin: 4px 0; }
nav a { font-family: "DejaVu Sans Mono", monospace; margin-right: 12px; }
a { color: #1d4ed8; text-decoration: none; }
.flags { margin: 8px 0 0; padding-left: 20px; }
.flags li.regression { color: #b91c1c; }
.flags li.suspicious { color: #b45309; }
.ok { color: #15803d; }
.section-head { display: flex; align-items: baseline; gap: 14px; flex-wrap: wrap; }
.row { display: flex; flex-wrap: wrap; gap: 16px; }
.grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(340px, 1fr)); gap: 16px; }
.grid svg.chart { width: 100%; }
figure { margin: 0; border: 1px solid #e5e7eb; border-radius: 6px; padding: 8px 10px; background: #fff; }
figure.wide { flex: 1 1 560px; min-width: 0; }
figcaption { font-size: 12.5px; margin-bottom: 4px; }
figcaption b { color: #111827; font-family: "DejaVu Sans Mono", monospace; font-weight: 600; }
svg.chart { display: block; max-width: 100%; height: auto; font-size: 12px; }
svg.lines { font-size: 11px; }
svg .grid { stroke: #eef0f3; }
svg .axis { stroke: #9ca3af; }
svg .tick, svg .unit { fill: #6b7280; }
svg .label { fill: #111827; font-family: "DejaVu Sans Mono", monospace; }
svg .value { fill: #111827; paint-order: stroke; stroke: #fff; stroke-width: 3px; }  /* legible over lines */
svg .bar { fill: #2563eb; }
svg .bar.slower { fill: #f97316; }
svg .bar.bandwidth { fill: #0d9488; }
svg .bar.uncalibrated { fill: #94a3b8; }
svg .bar.triad { fill: #7c3aed; }
svg .bar.compute { fill: #b45309; }
svg .reference { stroke: #111827; stroke-dasharray: 4 3; }
svg .reference-label { fill: #111827; font-size: 11px; }
svg .line { fill: none; stroke-width: 2; }
svg .line.dashed { stroke-dasharray: 5 4; stroke-width: 1.5; }
svg .mark, svg .key { fill: none; stroke-width: 2.2; }
svg .regression { stroke: #dc2626; }
svg .suspicious { stroke: #f59e0b; stroke-dasharray: 3 2; }
svg .improvement { stroke: #16a34a; }
.impl-0 { stroke: #2563eb; fill: #2563eb; }
.impl-1 { stroke: #9333ea; fill: #9333ea; }
.impl-2 { stroke: #0891b2; fill: #0891b2; }
.impl-3 { stroke: #ca8a04; fill: #ca8a04; }
.impl-torch { stroke: #6b7280; fill: #6b7280; }
.legend { display: flex; flex-wrap: wrap; gap: 16px; font-size: 12.5px; color: #374151; margin-bottom: 8px; }
.legend span { display: inline-flex; align-items: center; gap: 6px; }
.legend svg { display: inline-block; }
table { border-collapse: collapse; width: 100%; font-size: 13px; }
th, td { padding: 5px 10px; border-bottom: 1px solid #e5e7eb; text-align: left; white-space: nowrap; }
th { background: #f9fafb; font-weight: 600; color: #374151; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
td.mono { font-family: "DejaVu Sans Mono", monospace; }
td.regression { color: #b91c1c; font-weight: 600; }
td.suspicious { color: #b45309; }
td.improvement { color: #15803d; }
td.fail { color: #b91c1c; font-weight: 600; }
.table-wrap { overflow-x: auto; }
footer { color: #6b7280; font-size: 12px; margin: 8px 4px 0; }
)css";

struct run_id {
  std::int64_t timestamp = 0;  // [s since the epoch]
  std::string host;
  auto operator<=>(const run_id&) const = default;
};

/// `timestamp` [s since the epoch] in UTC with strftime's `format`.
std::string utc(std::int64_t timestamp, const char* format) {
  const auto t = static_cast<std::time_t>(timestamp);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char text[64];
  std::strftime(text, sizeof(text), format, &tm);
  return text;
}

/// The number of elements of a shape such as "[1024,256]" (the product of its numbers); +inf when it has
/// none. Orders shapes by size rather than as text ("[4096]" before "[1048576]").
double shape_elements(const std::string& shape) {
  double product = 1;
  bool any = false;
  for (std::size_t i = 0; i < shape.size();) {
    if (std::isdigit(static_cast<unsigned char>(shape[i])) == 0) {
      ++i;
      continue;
    }
    double n = 0;
    while (i < shape.size() && std::isdigit(static_cast<unsigned char>(shape[i])) != 0) {
      n = n * 10 + (shape[i] - '0');
      ++i;
    }
    product *= n;
    any = true;
  }
  return any ? product : std::numeric_limits<double>::infinity();
}

bool shape_less(const std::string& a, const std::string& b) {
  const double ea = shape_elements(a), eb = shape_elements(b);
  return ea != eb ? ea < eb : a < b;
}

/// kbench's implementations first, then other ones, the torch baseline last.
int implementation_rank(const std::string& implementation) {
  if (implementation.rfind("kbench", 0) == 0) return 0;
  return implementation == "torch" ? 2 : 1;
}

/// An implementation on one device: everything in a series key but kernel, shape and metric.
struct variant {
  std::string implementation, runner_name, runner_type, backend;
  auto operator<=>(const variant&) const = default;
};

variant variant_of(const series_key& key) {
  return {key.implementation, key.runner_name, key.runner_type, key.backend};
}

bool variant_less(const variant& a, const variant& b) {
  return std::tuple(implementation_rank(a.implementation), a.implementation, a.runner_type, a.runner_name,
                    a.backend) < std::tuple(implementation_rank(b.implementation), b.implementation,
                                            b.runner_type, b.runner_name, b.backend);
}

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

std::vector<kernel_view> kernels_of(const std::vector<series_history>& all) {
  std::map<std::string, kernel_view> by_name;
  for (const auto& s : all) {
    if (s.points.empty()) continue;
    auto& k = by_name[s.key.kernel];
    k.name = s.key.kernel;
    if (std::find(k.shapes.begin(), k.shapes.end(), s.key.shape) == k.shapes.end())
      k.shapes.push_back(s.key.shape);
    const variant v = variant_of(s.key);
    if (std::find(k.variants.begin(), k.variants.end(), v) == k.variants.end()) k.variants.push_back(v);
    for (const auto& p : s.points) k.runs.push_back({p.run.timestamp, p.run.host});
  }
  std::vector<kernel_view> out;
  for (auto& [name, k] : by_name) {
    std::sort(k.shapes.begin(), k.shapes.end(), shape_less);
    std::sort(k.variants.begin(), k.variants.end(), variant_less);
    std::sort(k.runs.begin(), k.runs.end());
    k.runs.erase(std::unique(k.runs.begin(), k.runs.end()), k.runs.end());
    out.push_back(std::move(k));
  }
  for (auto& k : out) {
    for (const auto& s : all) {
      if (s.points.empty() || s.key.kernel != k.name) continue;
      const auto v = static_cast<std::size_t>(
          std::find(k.variants.begin(), k.variants.end(), variant_of(s.key)) - k.variants.begin());
      k.series[{v, s.key.shape, s.key.metric}] = &s;
    }
  }
  return out;
}

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
std::vector<history::detection> verdicts_over_time(const series_history& s,
                                                   const history::detector_options& options) {
  std::vector<double> values;
  values.reserve(s.points.size());
  for (const auto& p : s.points) values.push_back(p.median);
  const bool higher_better = history::higher_is_better(s.key.metric);
  std::vector<history::detection> out;
  out.reserve(values.size());
  for (std::size_t i = 1; i <= values.size(); ++i) {
    out.push_back(history::detect(std::span<const double>(values).first(i), higher_better, options));
  }
  return out;
}

svg::point_mark mark_of(verdict v) {
  switch (v) {
    case verdict::regression:
      return svg::point_mark::regression;
    case verdict::suspicious_regression:
      return svg::point_mark::suspicious;
    case verdict::improvement:
      return svg::point_mark::improvement;
    default:
      return svg::point_mark::none;
  }
}

/// "regression: +30.1% against 0.0946" or "ok" or "insufficient data".
std::string verdict_text(const history::detection& d) {
  if (d.status == verdict::insufficient_data || d.status == verdict::ok)
    return std::string(to_string(d.status));
  return fmt::format("{} {:+.1f}% against {}", to_string(d.status), d.change * 100,
                     svg::format_number(d.baseline));
}

std::string anchor_of(const std::string& kernel) {
  std::string id = "kernel-";
  for (char c : kernel) {
    const auto u = static_cast<unsigned char>(c);
    id += (std::isalnum(u) != 0 || c == '_' || c == '-') ? static_cast<char>(std::tolower(u)) : '-';
  }
  return id;
}

std::string run_text(const history::run_info& run) {
  std::string text = utc(run.timestamp, "%Y-%m-%d %H:%M UTC");
  if (!run.commit.empty()) text += ", commit " + run.commit.substr(0, 12);
  return text;
}

/// A short line of colour swatches: the implementations drawn, and what the rings mean.
std::string legend(const kernel_view& k, const palette& colour) {
  std::string out = R"(<div class="legend">)";
  for (std::size_t v = 0; v < k.variants.size(); ++v) {
    bool drawn = false;
    for (const auto& shape : k.shapes) drawn = drawn || k.find(v, shape, "latency_ms") != nullptr;
    if (!drawn) continue;
    const bool torch = k.variants[v].implementation == "torch";
    out += fmt::format(
        R"(<span><svg width="26" height="10"><line class="{}" x1="1" y1="5" x2="25" y2="5" stroke-width="2"{}/></svg>{}</span>)",
        colour(k.variants[v].implementation), torch ? R"( stroke-dasharray="5 4")" : "",
        svg::escape(k.label(v)));
  }
  for (const auto& [cls, text] : {std::pair{"regression", "regression (two runs out of line)"},
                                  std::pair{"suspicious", "suspicious (newest run out of line)"},
                                  std::pair{"improvement", "improvement"}}) {
    out += fmt::format(
        R"(<span><svg width="18" height="18"><circle class="key {}" cx="9" cy="9" r="6.5"/></svg>{}</span>)",
        cls, text);
  }
  return out + "</div>";
}

struct flag {
  std::string kernel, shape, implementation, text;
  verdict status;
};

class page_builder {
 public:
  page_builder(const report_data& data, const html_report_options& options)
      : m_data(data), m_options(options), m_kernels(kernels_of(data.series)), m_colour(m_kernels) {}

  html_report build() {
    html_report result;
    std::set<run_id> runs;
    for (const auto& k : m_kernels) runs.insert(k.runs.begin(), k.runs.end());
    result.kernels = m_kernels.size();
    result.runs = runs.size();

    std::string sections;
    for (const auto& k : m_kernels) sections += section(k);
    for (const auto& f : m_flags) {
      if (f.status == verdict::regression) ++result.regressions;
      if (f.status == verdict::suspicious_regression) ++result.suspicious;
    }

    std::string& out = result.html;
    out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
    out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
    out += "<title>kbench report</title>\n<style>";
    out += style;
    out += "</style>\n</head>\n<body>\n<main>\n<header>\n<h1>kbench report</h1>\n";
    if (runs.empty()) {
      out += fmt::format("<p class=\"meta\">No results in {}.</p>\n", svg::escape(m_data.source));
    } else {
      out += fmt::format("<p class=\"meta\">{} kernel{}, {} run{} from {} to {} · {}</p>\n", m_kernels.size(),
                         m_kernels.size() == 1 ? "" : "s", runs.size(), runs.size() == 1 ? "" : "s",
                         utc(runs.begin()->timestamp, "%Y-%m-%d %H:%M"),
                         utc(runs.rbegin()->timestamp, "%Y-%m-%d %H:%M UTC"), svg::escape(m_data.source));
    }
    out += "<nav>";
    for (const auto& k : m_kernels)
      out += fmt::format("<a href=\"#{}\">{}</a>", anchor_of(k.name), svg::escape(k.name));
    out += "</nav>\n";
    out += flags_summary();
    out += "</header>\n" + sections;
    out += fmt::format(
        "<footer>Speedup = torch median wall latency / kbench median wall latency in the same run. "
        "Flags: each point judged when it arrived, against up to {} runs before it: {:g}% prediction "
        "interval on log values, minimum change {:g}%; a regression needs the two newest runs worse "
        "(as <code>kbench regressions</code>). % of peak: bytes moved per call / median wall latency, "
        "against the triad bandwidth that <code>kbench calibrate</code> cached on the machine that made "
        "this report.</footer>\n",
        m_options.detector.window, m_options.detector.confidence * 100, m_options.detector.threshold * 100);
    out += "</main>\n</body>\n</html>\n";
    return result;
  }

 private:
  std::string flags_summary() const {
    std::string out;
    std::vector<const flag*> newest;
    for (const auto& f : m_flags) {
      if (f.status == verdict::regression || f.status == verdict::suspicious_regression) newest.push_back(&f);
    }
    if (newest.empty()) {
      return "<p class=\"ok\">No latency regression flagged in the newest runs.</p>\n";
    }
    std::stable_sort(newest.begin(), newest.end(), [](const flag* a, const flag* b) {
      return (a->status == verdict::regression) > (b->status == verdict::regression);
    });
    out += "<p>Flagged in the newest runs (wall latency):</p>\n<ul class=\"flags\">";
    for (const flag* f : newest) {
      out += fmt::format("<li class=\"{}\"><a href=\"#{}\">{}</a> {} {}: {}</li>",
                         f->status == verdict::regression ? "regression" : "suspicious", anchor_of(f->kernel),
                         svg::escape(f->kernel), svg::escape(f->shape), svg::escape(f->implementation),
                         svg::escape(f->text));
    }
    return out + "</ul>\n";
  }

  std::string section(const kernel_view& k) {
    std::string out = fmt::format("<section class=\"kernel\" id=\"{}\" data-kernel=\"{}\">\n",
                                  anchor_of(k.name), svg::escape(k.name));
    std::vector<std::string> devices;
    for (const auto& v : k.variants) {
      if (v.implementation == "torch") continue;
      const std::string d = fmt::format("{}: {}", v.runner_name, v.runner_type);
      if (std::find(devices.begin(), devices.end(), d) == devices.end()) devices.push_back(d);
    }
    std::string device_text;
    for (const auto& d : devices) device_text += (device_text.empty() ? "" : "; ") + d;
    out += fmt::format(
        "<div class=\"section-head\"><h2>{}</h2><span class=\"meta\">{} shape{} · {} "
        "run{}{}{}</span></div>\n",
        svg::escape(k.name), k.shapes.size(), k.shapes.size() == 1 ? "" : "s", k.runs.size(),
        k.runs.size() == 1 ? "" : "s", device_text.empty() ? "" : " · ", svg::escape(device_text));
    out += "<div class=\"row\">\n" + speedup_panel(k) + bandwidth_panel(k) + "</div>\n";
    out += latency_panels(k);
    out += measures_table(k);
    return out + "</section>\n";
  }

  std::string speedup_panel(const kernel_view& k) const {
    svg::bar_chart chart;
    chart.reference = 1;
    chart.reference_label = "torch = 1x";
    chart.log_scale = true;  // a ratio: 0.5x and 2x are equally far from 1x, and 1000x still fits
    chart.tick_suffix = "x";
    chart.width = 560;
    chart.aria_label = fmt::format("{}: speedup vs torch per shape", k.name);
    for (const auto& shape : k.shapes) {
      for (std::size_t v = 0; v < k.variants.size(); ++v) {
        const auto* s = k.find(v, shape, "speedup");
        if (s == nullptr) continue;
        const auto& p = s->points.back();
        svg::bar b;
        b.label = k.bar_label(shape, v);
        b.value = p.median;
        b.value_text = svg::format_number(p.median) + "x";
        b.css_class = p.median >= 1 ? "faster" : "slower";
        b.tooltip = fmt::format("{} {}: {}x faster than torch ({})", shape, k.label(v),
                                svg::format_number(p.median), run_text(p.run));
        chart.bars.push_back(std::move(b));
      }
    }
    std::string out =
        "<figure class=\"wide speedup\"><figcaption><b>Speedup vs torch</b> per shape, newest run "
        "(torch median / kbench median wall latency, log scale; right of the line is faster)</figcaption>";
    if (chart.bars.empty()) {
      out += "<p class=\"empty\">No speedup: torch was not run, or no shape passed.</p>";
    } else {
      out += svg::render(chart);
    }
    return out + "</figure>\n";
  }

  /// The GFLOP/s of the compute-bound shapes (the kbench run's gflops metric), then the bandwidth of the
  /// others: a compute-bound shape's share of the memory's bandwidth says nothing about it.
  std::string bandwidth_panel(const kernel_view& k) const {
    const std::string compute = compute_panel(k);
    const std::string bandwidth = memory_panel(k);
    if (compute.empty() && bandwidth.empty()) {
      return "<figure class=\"wide bandwidth\"><figcaption><b>% of peak bandwidth</b> per shape</figcaption>"
             "<p class=\"empty\">No bandwidth figures: the kernel declares no bytes moved.</p></figure>\n";
    }
    return compute + bandwidth;
  }

  /// GFLOP/s per compute-bound shape of the newest run; empty when no shape has one.
  std::string compute_panel(const kernel_view& k) const {
    svg::bar_chart chart;
    chart.width = 560;
    chart.aria_label = fmt::format("{}: GFLOP/s per compute-bound shape", k.name);
    for (const auto& shape : k.shapes) {
      for (std::size_t v = 0; v < k.variants.size(); ++v) {
        const auto* s = k.find(v, shape, "gflops");
        if (s == nullptr) continue;
        const auto& p = s->points.back();
        svg::bar b;
        b.label = k.bar_label(shape, v);
        b.value = p.median;
        b.value_text = svg::format_number(p.median) + " GFLOP/s";
        b.css_class = "compute";
        b.tooltip = fmt::format("{} {}: {} GFLOP/s ({})", shape, k.label(v), svg::format_number(p.median),
                                run_text(p.run));
        chart.bars.push_back(std::move(b));
      }
    }
    if (chart.bars.empty()) return {};
    return "<figure class=\"wide compute\"><figcaption><b>GFLOP/s</b> per compute-bound shape, newest run "
           "(floating-point operations per call / median wall latency)</figcaption>" +
           svg::render(chart) + "</figure>\n";
  }

  /// % of peak bandwidth per shape that is not compute bound; empty when no shape has a bandwidth.
  std::string memory_panel(const kernel_view& k) const {
    svg::bar_chart percent, absolute;
    percent.reference = 100;
    percent.reference_label = "peak";
    percent.axis_max = 100;
    percent.tick_suffix = "%";
    percent.width = absolute.width = 560;
    percent.aria_label = fmt::format("{}: percent of peak bandwidth per shape", k.name);
    absolute.aria_label = fmt::format("{}: bandwidth per shape (no calibration)", k.name);
    std::vector<std::string> peaks, uncalibrated;
    for (const auto& shape : k.shapes) {
      for (std::size_t v = 0; v < k.variants.size(); ++v) {
        const auto* s = k.find(v, shape, "bandwidth_gbps");
        if (s == nullptr || k.find(v, shape, "gflops") != nullptr) continue;
        const auto& p = s->points.back();
        const auto peak = m_options.peak ? m_options.peak(s->key) : std::nullopt;
        const std::string device = fmt::format("{}: {}", s->key.runner_name, s->key.runner_type);
        svg::bar b;
        b.label = k.bar_label(shape, v);
        if (peak && peak->triad_gbps > 0) {
          b.value = 100 * p.median / peak->triad_gbps;
          b.value_text = fmt::format("{:.0f}% ({} GB/s)", b.value, svg::format_number(p.median));
          b.css_class = "bandwidth";
          b.tooltip = fmt::format("{} {}: {} GB/s of {} GB/s triad ({})", shape, k.label(v),
                                  svg::format_number(p.median), svg::format_number(peak->triad_gbps),
                                  run_text(p.run));
          const std::string text =
              fmt::format("{} GB/s triad on {}", svg::format_number(peak->triad_gbps), device);
          if (std::find(peaks.begin(), peaks.end(), text) == peaks.end()) peaks.push_back(text);
          percent.bars.push_back(std::move(b));
        } else {
          b.value = p.median;
          b.value_text = svg::format_number(p.median) + " GB/s";
          b.css_class = "uncalibrated";
          b.tooltip = fmt::format("{} {}: {} GB/s ({}); no calibration", shape, k.label(v),
                                  svg::format_number(p.median), run_text(p.run));
          if (std::find(uncalibrated.begin(), uncalibrated.end(), device) == uncalibrated.end())
            uncalibrated.push_back(device);
          absolute.bars.push_back(std::move(b));
        }
      }
    }
    std::string out =
        "<figure class=\"wide bandwidth\"><figcaption><b>% of peak bandwidth</b> per shape, newest run "
        "(bytes moved / median wall latency";
    for (const auto& text : peaks) out += " · " + svg::escape(text);
    out += ")</figcaption>";
    if (percent.bars.empty() && absolute.bars.empty()) return {};
    if (!percent.bars.empty()) out += svg::render(percent);
    for (const auto& device : uncalibrated) {
      out += fmt::format(
          "<p class=\"note uncalibrated\">no calibration for {}: achieved GB/s shown, not % of peak (run "
          "<code>kbench calibrate</code> on that machine).</p>",
          svg::escape(device));
    }
    if (!absolute.bars.empty()) out += svg::render(absolute);
    return out + same_turns_chart(k) + "</figure>\n";
  }

  /// The triad_fraction of the newest run per shape (kbench run: shapes larger than the caches only), as
  /// "% of the triad timed in the same turns"; empty when no shape has one.
  std::string same_turns_chart(const kernel_view& k) const {
    svg::bar_chart chart;
    chart.reference = 100;
    chart.reference_label = "triad";
    chart.axis_max = 100;
    chart.tick_suffix = "%";
    chart.width = 560;
    chart.aria_label = fmt::format("{}: percent of a triad timed in the same turns per shape", k.name);
    for (const auto& shape : k.shapes) {
      for (std::size_t v = 0; v < k.variants.size(); ++v) {
        const auto* s = k.find(v, shape, "triad_fraction");
        if (s == nullptr) continue;
        const auto& p = s->points.back();
        svg::bar b;
        b.label = k.bar_label(shape, v);
        b.value = 100 * p.median;
        b.value_text = fmt::format("{:.0f}%", b.value);
        b.css_class = "triad";
        b.tooltip =
            fmt::format("{} {}: {:.0f}% of the bandwidth of a STREAM triad timed in the same turns ({})",
                        shape, k.label(v), b.value, run_text(p.run));
        chart.bars.push_back(std::move(b));
      }
    }
    if (chart.bars.empty()) return {};
    return "<p class=\"note triad\"><b>% triad</b>: the same bandwidth against a STREAM triad timed in the "
           "same interleaved turns (shapes that move more than the caches hold)</p>" +
           svg::render(chart);
  }

  std::string latency_panels(const kernel_view& k) {
    std::string out = "<h3>Wall latency over time (median per run)</h3>\n" + legend(k, m_colour);
    out += "<div class=\"grid\">\n";
    std::vector<std::string> run_labels;
    for (const auto& r : k.runs) run_labels.push_back(utc(r.timestamp, "%m-%d %H:%M"));
    bool any = false;
    for (const auto& shape : k.shapes) {
      svg::line_chart chart;
      chart.runs = run_labels;
      chart.y_unit = "ms";
      chart.aria_label = fmt::format("{} {}: wall latency per run", k.name, shape);
      for (std::size_t v = 0; v < k.variants.size(); ++v) {
        const auto* s = k.find(v, shape, "latency_ms");
        if (s == nullptr) continue;
        const auto verdicts = verdicts_over_time(*s, m_options.detector);
        svg::line_series line;
        line.name = k.label(v);
        line.css_class = m_colour(k.variants[v].implementation);
        line.dashed = k.variants[v].implementation == "torch";
        for (std::size_t i = 0; i < s->points.size(); ++i) {
          const auto& p = s->points[i];
          const auto& d = verdicts[i];
          svg::line_point lp;
          lp.run = k.run_index(p.run);
          lp.value = p.median;
          lp.mark = mark_of(d.status);
          lp.tooltip = fmt::format("{}: {} {} ms ({}); {}", line.name, shape, svg::format_number(p.median, 4),
                                   run_text(p.run), verdict_text(d));
          line.points.push_back(std::move(lp));
        }
        m_flags.push_back({k.name, shape, line.name, verdict_text(verdicts.back()), verdicts.back().status});
        chart.series.push_back(std::move(line));
      }
      if (chart.series.empty()) continue;
      any = true;
      out += fmt::format(
          "<figure class=\"latency\" data-shape=\"{0}\"><figcaption><b>{0}</b></figcaption>{1}"
          "</figure>\n",
          svg::escape(shape), svg::render(chart));
    }
    if (!any) out += "<p class=\"empty\">No latency measured (every shape failed or was not run).</p>\n";
    return out + "</div>\n";
  }

  std::string measures_table(const kernel_view& k) const {
    std::string out =
        "<h3>Three measures, newest run (medians)</h3>\n<div class=\"table-wrap\"><table class=\"measures\">"
        "<thead><tr><th>Shape</th><th>Implementation</th><th>Device</th><th>Wall latency (ms)</th>"
        "<th>Throughput (ms)</th><th>Device time (ms)</th><th>Accuracy</th><th>Runs</th>"
        "<th>Newest latency</th></tr></thead><tbody>";
    auto cell = [&](std::size_t v, const std::string& shape, const char* metric) {
      const auto* s = k.find(v, shape, metric);
      return s == nullptr ? std::string("-") : svg::format_number(s->points.back().median, 4);
    };
    for (const auto& shape : k.shapes) {
      for (std::size_t v = 0; v < k.variants.size(); ++v) {
        const auto* latency = k.find(v, shape, "latency_ms");
        const auto* accuracy = k.find(v, shape, "accuracy");
        if (latency == nullptr && accuracy == nullptr && k.find(v, shape, "throughput_ms") == nullptr)
          continue;
        std::string accuracy_cell = "<td>-</td>";
        if (accuracy != nullptr) {
          accuracy_cell =
              accuracy->points.back().median >= 1 ? "<td>pass</td>" : "<td class=\"fail\">FAIL</td>";
        }
        std::string verdict_cell = "<td>-</td>";
        if (latency != nullptr) {
          const auto d = verdicts_over_time(*latency, m_options.detector).back();
          verdict_cell = fmt::format("<td class=\"{}\">{}</td>", svg::css_class(mark_of(d.status)),
                                     svg::escape(verdict_text(d)));
        }
        const auto& x = k.variants[v];
        out += fmt::format(
            "<tr><td class=\"mono\">{}</td><td>{}</td><td>{}</td><td class=\"num\">{}</td>"
            "<td class=\"num\">{}</td><td class=\"num\">{}</td>{}<td class=\"num\">{}</td>{}</tr>",
            svg::escape(shape), svg::escape(x.implementation),
            svg::escape(fmt::format("{}: {}", x.runner_name, x.runner_type)), cell(v, shape, "latency_ms"),
            cell(v, shape, "throughput_ms"), cell(v, shape, "device_ms"), accuracy_cell,
            latency == nullptr ? 0 : latency->points.size(), verdict_cell);
      }
    }
    return out + "</tbody></table></div>\n";
  }

  const report_data& m_data;
  const html_report_options& m_options;
  std::vector<kernel_view> m_kernels;
  palette m_colour;
  std::vector<flag> m_flags;  // the newest verdict of every latency line drawn
};

}  // namespace

html_report render_html_report(const report_data& data, const html_report_options& options) {
  return page_builder(data, options).build();
}

std::vector<series_history> series_of_runs(const std::vector<history::run_records>& runs) {
  // Runs in time order, a repeated run replaced by its last copy; then each point appended to its series.
  std::map<run_id, const history::run_records*> ordered;
  for (const auto& r : runs) ordered[{r.run.timestamp, r.run.host}] = &r;
  std::map<series_key, series_history> by_key;
  for (const auto& [id, r] : ordered) {
    for (const auto& p : r->points) {
      auto& s = by_key[p.series];
      s.key = p.series;
      history::stored_point sp;
      sp.run_id = static_cast<std::int64_t>(s.points.size());
      sp.run = r->run;
      sp.median = p.median;
      sp.samples = p.samples;
      s.points.push_back(std::move(sp));
    }
  }
  std::vector<series_history> out;
  out.reserve(by_key.size());
  for (auto& [key, s] : by_key) out.push_back(std::move(s));
  return out;
}

std::optional<calibration> cached_peak(const history::series_key& key) {
  backend_kind kind{};
  try {
    kind = parse_backend_kind(key.runner_name);
  } catch (const std::exception&) {
    return std::nullopt;  // a runner kbench does not know has no calibration
  }
  device_info device;
  device.backend = kind;
  device.name = key.runner_type;
  return cached_calibration(device);
}

}  // namespace kbench::report
