#pragma once
// A line chart over runs as inline SVG: the x axis is the sequence of runs (equally spaced, oldest left,
// labelled with their dates), one line per series, a dot per point and a ring around the points the
// regression detector flagged. Used for the report's latency-over-time panels.

#include <string>
#include <vector>

namespace kbench::report::svg {

/// How a point was judged when it arrived (see history/detector.hpp); drawn as a ring of that class.
enum class point_mark { none, suspicious, regression, improvement };

/// "", "suspicious", "regression", "improvement": the CSS class of the ring.
[[nodiscard]] const char* css_class(point_mark mark);

struct line_point {
  std::size_t run = 0;  // index into line_chart::runs
  double value = 0;     // [the y axis' unit]
  point_mark mark = point_mark::none;
  std::string tooltip;     // <title> of the dot
  bool disturbed = false;  // timed on a busy machine: drawn with a grey square around the dot
};

struct line_series {
  std::string name;                // for the aria label
  std::string css_class;           // class of the line and its dots ("impl-0", "impl-1", ...): the colour
  bool dashed = false;             // drawn dashed (the baseline)
  std::vector<line_point> points;  // in run order
};

struct line_chart {
  std::vector<std::string> runs;  // x labels, oldest first ("11-30 13:58")
  std::vector<line_series> series;
  std::string y_unit;      // after the y tick labels ("ms")
  std::string aria_label;  // what the chart shows
  double width = 380;      // [px]
  double height = 210;     // [px]
};

/// The chart as an <svg> element; the y axis turns logarithmic when the values span more than 20 times. Each
/// series is a <polyline class="line ..."> (when it has two points or more) and a <circle class="pt ..."> per
/// point; flagged points get a <circle class="mark ..."> ring.
[[nodiscard]] std::string render(const line_chart& chart);

}  // namespace kbench::report::svg
