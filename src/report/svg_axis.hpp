#pragma once
// What every chart of the HTML report shares: escaping text for HTML/SVG, compact number formatting, and
// "nice" axis ticks (1, 2 or 5 times a power of ten) that cover a data range.

#include <string>
#include <string_view>
#include <vector>

namespace kbench::report::svg {

/// `text` with &, <, >, " and ' replaced by entities: safe inside HTML/SVG text and quoted attributes.
[[nodiscard]] std::string escape(std::string_view text);

/// `value` with `digits` significant digits and no exponent for everyday magnitudes ("0.0123", "1.5",
/// "2500"); an exponent only below 1e-4 or from 1e7 on.
[[nodiscard]] std::string format_number(double value, int digits = 3);

/// An axis: the domain [lo, hi] the chart maps onto its pixels and the tick values inside it.
struct axis {
  double lo = 0, hi = 1;
  double step = 1;            // between ticks (linear axes)
  std::vector<double> ticks;  // lo, ..., hi
  bool log = false;           // values map by their logarithm (ratios: 0.5x and 2x equally far from 1x)
};

/// About `max_ticks` nice ticks whose domain covers [lo, hi]. An empty range (lo == hi) is widened by 10%
/// on each side (or to [0, 1] around zero); `from_zero` starts the domain at 0 for non-negative data.
[[nodiscard]] axis nice_axis(double lo, double hi, int max_ticks = 5, bool from_zero = false);

/// A logarithmic axis covering [lo, hi] (both > 0; smaller values are clamped to 1e-12): ticks at 1, 2 and 5
/// times powers of ten, or at powers of ten alone when those would be more than `max_ticks`.
[[nodiscard]] axis log_axis(double lo, double hi, int max_ticks = 7);

/// Where `value` falls on `a`, mapped to pixels from `from` (at a.lo) to `to` (at a.hi).
[[nodiscard]] double scale(const axis& a, double value, double from, double to);

/// Width of `text` in pixels at `font_px`, estimated for a sans-serif font (about 0.6 em a character):
/// enough to size margins so that labels are never clipped.
[[nodiscard]] double text_width(std::string_view text, double font_px);

}  // namespace kbench::report::svg
