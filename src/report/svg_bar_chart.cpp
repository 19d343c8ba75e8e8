// The horizontal bar chart of the HTML report (see svg_bar_chart.hpp).

#include "report/svg_bar_chart.hpp"

#include "report/svg_axis.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace kbench::report::svg {

namespace {

constexpr double font_px = 12;       // labels and values
constexpr double row_px = 24;        // one bar and its gap
constexpr double bar_px = 16;        // bar thickness
constexpr double top_px = 20;        // room for the reference label
constexpr double axis_px = 22;       // tick labels under the bars
constexpr double value_room_px = 8;  // gap between a bar's end and its value

}  // namespace

std::string render(const bar_chart& chart) {
  double longest_label = 0, longest_value = 0, largest = chart.axis_max;
  double smallest = std::numeric_limits<double>::infinity();
  for (const auto& b : chart.bars) {
    longest_label = std::max(longest_label, text_width(b.label, font_px));
    longest_value = std::max(longest_value, text_width(b.value_text, font_px));
    if (std::isfinite(b.value)) {
      largest = std::max(largest, b.value);
      smallest = std::min(smallest, b.value);
    }
  }
  const bool has_reference = std::isfinite(chart.reference);
  if (has_reference) {
    largest = std::max(largest, chart.reference);
    smallest = std::min(smallest, chart.reference);
  }
  if (!std::isfinite(smallest)) smallest = largest > 0 ? largest : 1;
  const axis x = chart.log_scale ? log_axis(smallest, std::max(largest, smallest))
                                 : nice_axis(0, largest, 5, /*from_zero=*/true);
  // Bars grow from the origin: 0 on a linear axis, the reference (1x) on a log axis.
  const double origin = !chart.log_scale ? 0.0 : has_reference ? chart.reference : x.lo;
  const bool any_below = chart.log_scale && smallest < origin;

  const double left = std::clamp(longest_label + 12, 40.0, chart.width * 0.4) +
                      (any_below ? longest_value + value_room_px : 0.0);
  const double right = chart.width - std::max(longest_value + value_room_px + 4, 24.0);
  const double height =
      top_px + row_px * static_cast<double>(std::max<std::size_t>(chart.bars.size(), 1)) + axis_px;
  const double bottom = height - axis_px;
  const double label_x = left - 6 - (any_below ? longest_value + value_room_px : 0.0);
  const double origin_px = scale(x, origin, left, right);

  std::string out = fmt::format(
      R"(<svg class="chart bars" width="{0:.0f}" height="{1:.0f}" viewBox="0 0 {0:.0f} {1:.0f}" role="img" )"
      R"(aria-label="{2}">)",
      chart.width, height, escape(chart.aria_label));
  // Grid and tick labels first, so that the bars draw over them.
  for (double t : x.ticks) {
    const double px = scale(x, t, left, right);
    out += fmt::format(R"(<line class="grid" x1="{0:.1f}" y1="{1:.1f}" x2="{0:.1f}" y2="{2:.1f}"/>)", px,
                       top_px - 4, bottom);
    out += fmt::format(R"(<text class="tick" x="{:.1f}" y="{:.1f}" text-anchor="middle">{}{}</text>)", px,
                       bottom + 15, format_number(t), escape(chart.tick_suffix));
  }
  for (std::size_t i = 0; i < chart.bars.size(); ++i) {
    const auto& b = chart.bars[i];
    const double y = top_px + row_px * static_cast<double>(i) + (row_px - bar_px) / 2;
    const double value = std::isfinite(b.value) ? b.value : origin;
    const double end = scale(x, chart.log_scale ? value : std::max(value, 0.0), left, right);
    const bool below = end < origin_px;
    out += fmt::format(R"(<text class="label" x="{:.1f}" y="{:.1f}" text-anchor="end">{}</text>)", label_x,
                       y + bar_px / 2 + 4, escape(b.label));
    out += fmt::format(R"(<rect class="bar{}{}" x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.0f}">)",
                       b.css_class.empty() ? "" : " ", escape(b.css_class), std::min(origin_px, end), y,
                       std::max(std::fabs(end - origin_px), 1.0), bar_px);
    out += fmt::format("<title>{}</title></rect>", escape(b.tooltip.empty() ? b.value_text : b.tooltip));
    out += fmt::format(R"(<text class="value" x="{:.1f}" y="{:.1f}"{}>{}</text>)",
                       below ? end - value_room_px / 2 : end + value_room_px / 2, y + bar_px / 2 + 4,
                       below ? R"( text-anchor="end")" : "", escape(b.value_text));
  }
  if (std::isfinite(chart.reference)) {
    const double px = scale(x, chart.reference, left, right);
    out += fmt::format(R"(<line class="reference" x1="{0:.1f}" y1="{1:.1f}" x2="{0:.1f}" y2="{2:.1f}"/>)", px,
                       top_px - 6, bottom);
    out +=
        fmt::format(R"(<text class="reference-label" x="{:.1f}" y="{:.1f}" text-anchor="middle">{}</text>)",
                    px, top_px - 9, escape(chart.reference_label));
  }
  out += fmt::format(R"(<line class="axis" x1="{0:.1f}" y1="{1:.1f}" x2="{0:.1f}" y2="{2:.1f}"/>)", left,
                     top_px - 4, bottom);
  out += "</svg>";
  return out;
}

}  // namespace kbench::report::svg
