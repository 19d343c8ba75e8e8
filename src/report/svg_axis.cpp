// Escaping, number formatting and nice axes for the report's charts (see svg_axis.hpp).

#include "report/svg_axis.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace kbench::report::svg {

std::string escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string format_number(double value, int digits) {
  if (!std::isfinite(value)) return "-";
  if (value == 0) return "0";
  const double magnitude = std::fabs(value);
  if (magnitude < 1e-4 || magnitude >= 1e7) return fmt::format("{:.{}e}", value, std::max(digits - 1, 0));
  // Digits after the point so that `digits` significant ones show; trailing zeros are then dropped.
  const int exponent = static_cast<int>(std::floor(std::log10(magnitude)));
  const int decimals = std::max(digits - 1 - exponent, 0);
  std::string text = fmt::format("{:.{}f}", value, decimals);
  if (text.find('.') != std::string::npos) {
    while (text.back() == '0') text.pop_back();
    if (text.back() == '.') text.pop_back();
  }
  return text;
}

axis nice_axis(double lo, double hi, int max_ticks, bool from_zero) {
  if (!std::isfinite(lo) || !std::isfinite(hi)) lo = hi = 0;
  if (lo > hi) std::swap(lo, hi);
  if (from_zero && lo > 0) lo = 0;
  if (lo == hi) {
    const double pad = lo == 0 ? 1.0 : std::fabs(lo) * 0.1;
    hi += pad;
    lo = (from_zero && lo >= 0) ? 0 : lo - pad;
  }
  max_ticks = std::max(max_ticks, 2);
  // The step: the range over the intervals, rounded up to 1, 2 or 5 times a power of ten.
  const double raw = (hi - lo) / (max_ticks - 1);
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  double step = 10 * power;
  for (double m : {1.0, 2.0, 5.0}) {
    if (m * power >= raw * (1 - 1e-9)) {
      step = m * power;
      break;
    }
  }
  axis a;
  a.step = step;
  a.lo = std::floor(lo / step + 1e-9) * step;
  a.hi = std::ceil(hi / step - 1e-9) * step;
  if (a.hi <= a.lo) a.hi = a.lo + step;
  const auto count = static_cast<int>(std::lround((a.hi - a.lo) / step));
  for (int i = 0; i <= count; ++i) {
    const double t = a.lo + i * step;
    a.ticks.push_back(std::fabs(t) < step * 1e-9 ? 0.0 : t);  // no "-0" from rounding
  }
  return a;
}

axis log_axis(double lo, double hi, int max_ticks) {
  constexpr double smallest = 1e-12;
  lo = std::isfinite(lo) ? std::max(lo, smallest) : 1.0;
  hi = std::isfinite(hi) ? std::max(hi, smallest) : 1.0;
  if (lo > hi) std::swap(lo, hi);
  const int e_lo = static_cast<int>(std::floor(std::log10(lo) + 1e-9));
  const int e_hi = static_cast<int>(std::ceil(std::log10(hi) - 1e-9));
  // Candidates 1, 2, 5 x 10^e (or 10^e alone); the domain runs from the last one at or below lo to the first
  // one at or above hi.
  auto build = [&](bool decades_only) {
    std::vector<double> candidates;
    for (int e = e_lo; e <= e_hi + 1; ++e) {
      for (double m : {1.0, 2.0, 5.0}) {
        if (decades_only && m != 1.0) continue;
        candidates.push_back(m * std::pow(10.0, e));
      }
    }
    axis a;
    a.log = true;
    a.lo = candidates.front();
    for (double c : candidates) {
      if (c <= lo * (1 + 1e-9)) a.lo = c;
    }
    a.hi = candidates.back();
    for (auto it = candidates.rbegin(); it != candidates.rend(); ++it) {
      if (*it >= hi * (1 - 1e-9)) a.hi = *it;
    }
    if (a.hi <= a.lo) a.hi = a.lo * (decades_only ? 10 : 2);
    for (double c : candidates) {
      if (c >= a.lo * (1 - 1e-9) && c <= a.hi * (1 + 1e-9)) a.ticks.push_back(c);
    }
    return a;
  };
  axis a = build(false);
  if (static_cast<int>(a.ticks.size()) > std::max(max_ticks, 2)) a = build(true);
  return a;
}

double scale(const axis& a, double value, double from, double to) {
  if (a.log) {
    const double v = std::log10(std::max(value, 1e-12));
    return from + (v - std::log10(a.lo)) / (std::log10(a.hi) - std::log10(a.lo)) * (to - from);
  }
  return from + (value - a.lo) / (a.hi - a.lo) * (to - from);
}

double text_width(std::string_view text, double font_px) {
  return static_cast<double>(text.size()) * 0.6 * font_px;
}

}  // namespace kbench::report::svg
