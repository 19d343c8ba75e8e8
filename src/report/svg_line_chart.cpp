// The line chart over runs of the HTML report (see svg_line_chart.hpp).

#include "report/svg_line_chart.hpp"

#include "report/svg_axis.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace kbench::report::svg {

namespace {

constexpr double font_px = 11;       // tick labels
constexpr double top_px = 22;        // above the plot: the unit
constexpr double bottom_px = 34;     // x tick labels (two lines: date and time)
constexpr double right_px = 16;      // room for the last dot and ring
constexpr double x_label_px = 64;    // the least room one x label needs
constexpr double min_span = 0.2;     // the y axis spans at least this fraction of its largest value
constexpr double log_span = 20;      // largest / smallest value beyond which the y axis is logarithmic
constexpr double dot_radius = 3;     // [px]
constexpr double ring_radius = 7.5;  // [px]

/// The y domain. Values spanning more than `log_span` times (a 20 ms baseline beside a 0.01 ms kernel) get a
/// log axis. Otherwise the values with 5% room, widened to span at least min_span of the largest value, so
/// that noise of a few percent does not fill the whole height.
axis y_axis(const line_chart& chart) {
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const auto& s : chart.series) {
    for (const auto& p : s.points) {
      if (!std::isfinite(p.value)) continue;
      lo = std::min(lo, p.value);
      hi = std::max(hi, p.value);
    }
  }
  if (lo > hi) return nice_axis(0, 1, 5);
  if (lo > 0 && hi / lo > log_span) return log_axis(lo, hi, 6);
  const bool non_negative = lo >= 0;
  const double pad = (hi - lo) * 0.05;
  lo -= pad;
  hi += pad;
  const double least = std::fabs(hi) * min_span;
  if (hi - lo < least) {
    const double centre = (hi + lo) / 2;
    lo = centre - least / 2;
    hi = centre + least / 2;
  }
  if (non_negative) lo = std::max(lo, 0.0);  // no negative latencies on the axis
  return nice_axis(lo, hi, 5);
}

}  // namespace

const char* css_class(point_mark mark) {
  switch (mark) {
    case point_mark::suspicious:
      return "suspicious";
    case point_mark::regression:
      return "regression";
    case point_mark::improvement:
      return "improvement";
    case point_mark::none:
      break;
  }
  return "";
}

std::string render(const line_chart& chart) {
  const axis y = y_axis(chart);
  double longest_tick = 0;
  for (double t : y.ticks) longest_tick = std::max(longest_tick, text_width(format_number(t), font_px));
  const double left = longest_tick + 12;
  const double right = chart.width - right_px;
  const double bottom = chart.height - bottom_px;
  const std::size_t runs = std::max<std::size_t>(chart.runs.size(), 1);
  // Runs equally spaced; a single run sits in the middle.
  auto x_of = [&](std::size_t run) {
    if (runs == 1) return (left + right) / 2;
    return left + 8 + (right - left - 16) * static_cast<double>(run) / static_cast<double>(runs - 1);
  };
  auto y_of = [&](double v) { return scale(y, v, bottom, top_px); };

  std::string out = fmt::format(
      R"(<svg class="chart lines" width="{0:.0f}" height="{1:.0f}" viewBox="0 0 {0:.0f} {1:.0f}" role="img" )"
      R"(aria-label="{2}">)",
      chart.width, chart.height, escape(chart.aria_label));
  for (double t : y.ticks) {
    const double py = y_of(t);
    out += fmt::format(R"(<line class="grid" x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}"/>)", left, py,
                       right, py);
    out += fmt::format(R"(<text class="tick" x="{:.1f}" y="{:.1f}" text-anchor="end">{}</text>)", left - 5,
                       py + 4, format_number(t));
  }
  if (!chart.y_unit.empty()) {
    out += fmt::format(R"(<text class="unit" x="4" y="{:.1f}">{}{}</text>)", top_px - 10,
                       escape(chart.y_unit), y.log ? " (log scale)" : "");
  }
  // X labels: as many as fit, evenly chosen, always the first and the last run. "MM-DD HH:MM" is split into
  // two lines to stay narrow.
  const auto fit = static_cast<std::size_t>(std::max((right - left) / x_label_px, 1.0));
  const std::size_t shown = std::min(chart.runs.size(), std::max<std::size_t>(fit, 1));
  for (std::size_t k = 0; k < shown; ++k) {
    const std::size_t run = shown == 1 ? chart.runs.size() - 1 : k * (chart.runs.size() - 1) / (shown - 1);
    const std::string& label = chart.runs[run];
    const auto space = label.find(' ');
    const double px = x_of(run);
    out += fmt::format(R"(<text class="tick" x="{:.1f}" y="{:.1f}" text-anchor="middle">)", px, bottom + 14);
    if (space == std::string::npos) {
      out += escape(label);
    } else {
      out += fmt::format(R"(<tspan x="{0:.1f}">{1}</tspan><tspan x="{0:.1f}" dy="12">{2}</tspan>)", px,
                         escape(label.substr(0, space)), escape(label.substr(space + 1)));
    }
    out += "</text>";
  }
  out += fmt::format(R"(<line class="axis" x1="{0:.1f}" y1="{1:.1f}" x2="{2:.1f}" y2="{1:.1f}"/>)", left,
                     bottom, right);

  for (const auto& s : chart.series) {
    const std::string cls = escape(s.css_class);
    if (s.points.size() >= 2) {
      std::string coords;
      for (const auto& p : s.points) coords += fmt::format("{:.1f},{:.1f} ", x_of(p.run), y_of(p.value));
      coords.pop_back();
      out +=
          fmt::format(R"(<polyline class="line {}{}" points="{}"/>)", cls, s.dashed ? " dashed" : "", coords);
    }
    for (const auto& p : s.points) {
      const double px = x_of(p.run), py = y_of(p.value);
      if (p.disturbed) {
        out += fmt::format(
            R"(<rect class="mark disturbed" x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}"/>)",
            px - ring_radius, py - ring_radius, 2 * ring_radius, 2 * ring_radius);
      }
      if (p.mark != point_mark::none) {
        out += fmt::format(R"(<circle class="mark {}" cx="{:.1f}" cy="{:.1f}" r="{:.1f}"/>)",
                           css_class(p.mark), px, py, ring_radius);
      }
      out += fmt::format(
          R"(<circle class="pt {}" cx="{:.1f}" cy="{:.1f}" r="{:.1f}"><title>{}</title></circle>)", cls, px,
          py, dot_radius, escape(p.tooltip));
    }
  }
  out += "</svg>";
  return out;
}

}  // namespace kbench::report::svg
