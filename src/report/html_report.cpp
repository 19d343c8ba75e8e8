// The HTML report (see html_report.hpp): the page's structure and style; a kernel's panels are in
// kernel_panels.hpp, the charts in svg_*.cpp.

#include <kbench/device.hpp>
#include <kbench/report/html_report.hpp>

#include "report/kernel_panels.hpp"
#include "report/report_model.hpp"
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
using namespace kbench::suite;  // the suite's kernel API, unqualified
namespace {

using namespace detail;

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
svg .bar.same { fill: #94a3b8; }
svg .bar.unreliable { fill: #e5e7eb; stroke: #6b7280; stroke-dasharray: 2 2; }
svg .bar.bandwidth { fill: #0d9488; }
svg .bar.uncalibrated { fill: #94a3b8; }
svg .bar.cache { fill: #cbd5e1; }
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
svg .disturbed { stroke: #6b7280; stroke-dasharray: 2 2; }
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
    out += fmt::format("<meta name=\"generator\" content=\"{}\">\n", report::html_report_generator);
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
    out += "<div class=\"row\">\n" + speedup_panel(k) + bandwidth_panel(k, m_panels) + "</div>\n";
    out += latency_panels(k, m_panels, m_flags);
    out += measures_table(k, m_panels);
    return out + "</section>\n";
  }

  const report_data& m_data;
  const html_report_options& m_options;
  std::vector<kernel_view> m_kernels;
  palette m_colour;
  panel_context m_panels{m_options, m_colour};
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
