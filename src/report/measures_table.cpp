// The three-measure table of a kernel's newest run.

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

std::string measures_table(const kernel_view& k, const panel_context& ctx) {
  std::string out =
      "<h3>Three measures, newest run (medians)</h3>\n<div class=\"table-wrap\"><table class=\"measures\">"
      "<thead><tr><th>Shape</th><th>Implementation</th><th>Device</th><th>Wall latency (ms)</th>"
      "<th>Throughput (ms)</th><th>Device time (ms)</th><th>Accuracy</th><th>Runs</th>"
      "<th>Newest latency</th></tr></thead><tbody>";
  auto cell = [&](std::size_t v, const std::string& shape, const char* metric) {
    const auto* s = k.find(v, shape, metric);
    return s == nullptr ? std::string("-") : svg::format_number(s->points.back().median, 4);
  };
  for (const auto& shape : k.shapes) {
    for (std::size_t v = 0; v < k.variants.size(); ++v) {
      const auto* latency = k.find(v, shape, "latency_ms");
      const auto* accuracy = k.find(v, shape, "accuracy");
      if (latency == nullptr && accuracy == nullptr && k.find(v, shape, "throughput_ms") == nullptr) continue;
      std::string accuracy_cell = "<td>-</td>";
      if (accuracy != nullptr) {
        accuracy_cell =
            accuracy->points.back().median >= 1 ? "<td>pass</td>" : "<td class=\"fail\">FAIL</td>";
      }
      std::string verdict_cell = "<td>-</td>";
      if (latency != nullptr) {
        const auto d = verdicts_over_time(*latency, ctx.options.detector).back();
        verdict_cell = fmt::format("<td class=\"{}\">{}</td>", svg::css_class(mark_of(d.status)),
                                   svg::escape(verdict_text(d)));
      }
      const auto& x = k.variants[v];
      out += fmt::format(
          "<tr><td class=\"mono\">{}</td><td>{}</td><td>{}</td><td class=\"num\">{}</td>"
          "<td class=\"num\">{}</td><td class=\"num\">{}</td>{}<td class=\"num\">{}</td>{}</tr>",
          svg::escape(shape), svg::escape(x.implementation),
          svg::escape(fmt::format("{}: {}", x.runner_name, x.runner_type)), cell(v, shape, "latency_ms"),
          cell(v, shape, "throughput_ms"), cell(v, shape, "device_ms"), accuracy_cell,
          latency == nullptr ? 0 : latency->points.size(), verdict_cell);
    }
  }
  return out + "</tbody></table></div>\n";
}

}  // namespace kbench::report::detail
