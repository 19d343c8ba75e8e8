// The speedup panel of a kernel: kbench against the torch baseline per shape, in the newest run.

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

std::string speedup_panel(const kernel_view& k) {
  svg::bar_chart chart;
  chart.reference = 1;
  chart.reference_label = "torch = 1x";
  chart.log_scale = true;  // a ratio: halving and doubling lie equally far from 1, and large ones still fit
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

}  // namespace kbench::report::detail
