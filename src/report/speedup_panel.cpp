// The speedup panel of a kernel: kbench against the torch baseline per shape, in the newest run.

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
      // The run's own verdict (kbench run's speedup_verdict), never one of the report's: a speedup within
      // noise is "same", and one timed on a busy machine "unreliable", whatever its ratio.
      const auto code = k.value_in_run(v, shape, io::speedup_verdict_metric, p.run);
      const std::string verdict(code ? io::verdict_of_code(*code).value_or("") : std::string_view());
      svg::bar b;
      b.label = k.bar_label(shape, v);
      b.value = p.median;
      b.value_text = svg::format_number(p.median) + "x" + (verdict.empty() ? "" : " " + verdict);
      b.css_class = verdict.empty() ? (p.median >= 1 ? "faster" : "slower") : verdict;
      b.tooltip = verdict.empty()
                      ? fmt::format("{} {}: {}x torch's speed ({}; this run recorded no verdict)", shape,
                                    k.label(v), svg::format_number(p.median), run_text(p.run))
                      : fmt::format("{} {}: {}x torch's speed, {} ({})", shape, k.label(v),
                                    svg::format_number(p.median), verdict, run_text(p.run));
      chart.bars.push_back(std::move(b));
    }
  }
  std::string out =
      "<figure class=\"wide speedup\"><figcaption><b>Speedup vs torch</b> per shape, newest run "
      "(torch median / kbench median wall latency, log scale; right of the line is faster), with kbench "
      "run's "
      "verdict: faster or slower when the interval excludes 1 by at least the minimum effect, same "
      "otherwise, "
      "unreliable when timed on a busy machine</figcaption>";
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
