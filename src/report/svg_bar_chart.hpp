#pragma once
// A horizontal bar chart as inline SVG: one labelled bar per item, its value written at the bar's end, and an
// optional reference line (1x for speedups, 100% for bandwidth). Used for the report's speedup vs torch and
// % of peak bandwidth panels.

#include <cmath>
#include <string>
#include <vector>

namespace kbench::report::svg {

struct bar {
  std::string label;       // left of the bar ("[1024]")
  double value = 0;        // bar length, in the chart's unit
  std::string value_text;  // written after the bar ("1.83x")
  std::string css_class;   // extra class of the bar's <rect>, e.g. "faster" or "slower"
  std::string tooltip;     // <title> of the bar
};

struct bar_chart {
  std::vector<bar> bars;
  double reference = NAN;       // a vertical line at this value (NAN: none)
  std::string reference_label;  // written at the top of the reference line
  double axis_max = 0;          // linear: the axis covers at least [0, axis_max]; it grows to fit every bar
  bool log_scale = false;       // a log axis, bars growing from the reference (ratios such as speedups)
  std::string tick_suffix;      // appended to the tick labels ("x", "%")
  std::string aria_label;       // what the chart shows, for screen readers
  double width = 520;           // [px]
};

/// The chart as an <svg> element (no xmlns: it is inline HTML). Bars have class "bar" (plus css_class); a
/// chart without bars still renders its axis. On a log scale a bar below the reference grows to the left,
/// with its value written left of its end.
[[nodiscard]] std::string render(const bar_chart& chart);

}  // namespace kbench::report::svg
