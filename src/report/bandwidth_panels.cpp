// The bandwidth panels of a kernel: % of the calibrated peak, % of the triad timed in the same turns, and
// GFLOP/s for compute-bound shapes.

#include <kbench/io/run_marks.hpp>

#include "report/kernel_panels.hpp"
#include "report/svg_axis.hpp"
#include "report/svg_bar_chart.hpp"
#include "report/svg_line_chart.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace kbench::report::detail {

namespace {

/// The triad_fraction of the newest run per shape (kbench run: shapes larger than the caches only), as
/// "% of the triad timed in the same turns"; empty when no shape has one.
std::string same_turns_chart(const kernel_view& k) {
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
          fmt::format("{} {}: {:.0f}% of the bandwidth of a STREAM triad timed in the same turns ({})", shape,
                      k.label(v), b.value, run_text(p.run));
      chart.bars.push_back(std::move(b));
    }
  }
  if (chart.bars.empty()) return {};
  return "<p class=\"note triad\"><b>% triad</b>: the same bandwidth against a STREAM triad timed in the "
         "same interleaved turns (shapes that move more than the caches hold)</p>" +
         svg::render(chart);
}

/// GFLOP/s per compute-bound shape of the newest run; empty when no shape has one.
std::string compute_panel(const kernel_view& k) {
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
std::string memory_panel(const kernel_view& k, const panel_context& ctx) {
  svg::bar_chart percent, absolute;
  percent.reference = 100;
  percent.reference_label = "peak";
  percent.axis_max = 100;
  percent.tick_suffix = "%";
  percent.width = absolute.width = 560;
  percent.aria_label = fmt::format("{}: percent of peak bandwidth per shape", k.name);
  absolute.aria_label = fmt::format("{}: bandwidth per shape (no calibration)", k.name);
  std::vector<std::string> peaks, uncalibrated;
  std::size_t from_cache = 0;  // bars above the peak, drawn as "cache"
  for (const auto& shape : k.shapes) {
    for (std::size_t v = 0; v < k.variants.size(); ++v) {
      const auto* s = k.find(v, shape, "bandwidth_gbps");
      if (s == nullptr || k.find(v, shape, "gflops") != nullptr) continue;
      const auto& p = s->points.back();
      const auto peak = ctx.options.peak ? ctx.options.peak(s->key) : std::nullopt;
      const std::string device = fmt::format("{}: {}", s->key.runner_name, s->key.runner_type);
      svg::bar b;
      b.label = k.bar_label(shape, v);
      if (peak && peak->triad_gbps > 0) {
        b.value = 100 * p.median / peak->triad_gbps;
        b.value_text = fmt::format("{:.0f}% ({} GB/s)", b.value, svg::format_number(p.median));
        b.css_class = "bandwidth";
        b.tooltip =
            fmt::format("{} {}: {} GB/s of {} GB/s triad ({})", shape, k.label(v),
                        svg::format_number(p.median), svg::format_number(peak->triad_gbps), run_text(p.run));
        // The run's own mark (kbench run's served_from_cache: the shape fits the caches), or, for runs that
        // recorded none, a bandwidth above the memory's peak: the caches served it, and a share of the
        // memory's peak says nothing about it.
        const auto cached = k.value_in_run(v, shape, io::served_from_cache_metric, p.run);
        if (cached ? *cached >= 0.5 : b.value > 100) {
          b.value = 100;
          b.value_text = fmt::format("cache ({} GB/s)", svg::format_number(p.median));
          b.css_class = "cache";
          b.tooltip = fmt::format("{} {}: {} GB/s against a {} GB/s triad: served by the caches ({})", shape,
                                  k.label(v), svg::format_number(p.median),
                                  svg::format_number(peak->triad_gbps), run_text(p.run));
          ++from_cache;
        }
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
  if (from_cache > 0) {
    out +=
        "<p class=\"note cache\"><b>cache</b>: shapes the caches served (kbench run found that they move no "
        "more than the caches hold, or they beat the memory's peak); a share of the memory's peak says "
        "nothing "
        "about them.</p>";
  }
  for (const auto& device : uncalibrated) {
    out += fmt::format(
        "<p class=\"note uncalibrated\">no calibration for {}: achieved GB/s shown, not % of peak (run "
        "<code>kbench calibrate</code> on that machine).</p>",
        svg::escape(device));
  }
  if (!absolute.bars.empty()) out += svg::render(absolute);
  return out + same_turns_chart(k) + "</figure>\n";
}

}  // namespace

std::string bandwidth_panel(const kernel_view& k, const panel_context& ctx) {
  const std::string compute = compute_panel(k);
  const std::string bandwidth = memory_panel(k, ctx);
  if (compute.empty() && bandwidth.empty()) {
    return "<figure class=\"wide bandwidth\"><figcaption><b>% of peak bandwidth</b> per shape</figcaption>"
           "<p class=\"empty\">No bandwidth figures: the kernel declares no bytes moved.</p></figure>\n";
  }
  return compute + bandwidth;
}

}  // namespace kbench::report::detail
