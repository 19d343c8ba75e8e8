// The latency panels of a kernel: wall latency per shape over the runs, with the detector's verdicts.

#include "report/kernel_panels.hpp"
#include "report/svg_axis.hpp"
#include "report/svg_bar_chart.hpp"
#include "report/svg_line_chart.hpp"

#include <kbench/history/machine_marks.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace kbench::report::detail {

std::string latency_panels(const kernel_view& k, const panel_context& ctx, std::vector<flag>& flags) {
  std::string out = "<h3>Wall latency over time (median per run)</h3>\n" + legend(k, ctx.colour);
  out += "<div class=\"grid\">\n";
  std::vector<std::string> run_labels;
  for (const auto& r : k.runs) run_labels.push_back(utc(r.timestamp, "%m-%d %H:%M"));
  bool any = false;
  // The points timed on a busy machine: marked, and left out of the verdicts (as kbench regressions does).
  std::vector<series_history> machine;
  for (std::size_t v = 0; v < k.variants.size(); ++v) {
    for (const auto& shape : k.shapes) {
      if (const auto* m = k.find(v, shape, std::string(history::machine_disturbed_metric)))
        machine.push_back(*m);
    }
  }
  const history::disturbed_runs disturbed(machine);
  for (const auto& shape : k.shapes) {
    svg::line_chart chart;
    chart.runs = run_labels;
    chart.y_unit = "ms";
    chart.aria_label = fmt::format("{} {}: wall latency per run", k.name, shape);
    for (std::size_t v = 0; v < k.variants.size(); ++v) {
      const auto* s = k.find(v, shape, "latency_ms");
      if (s == nullptr) continue;
      // Verdicts over the quiet points; a disturbed point shows the verdict of the quiet ones before it.
      series_history quiet{s->key, {}};
      std::vector<std::size_t> quiet_index;  // per point: its last quiet point's index in `quiet`
      for (const auto& p : s->points) {
        if (!disturbed.contains(s->key, p.run)) quiet.points.push_back(p);
        quiet_index.push_back(quiet.points.empty() ? 0 : quiet.points.size() - 1);
      }
      if (quiet.points.empty())
        quiet.points.push_back(s->points.front());  // nothing quiet: judge what there is
      const auto quiet_verdicts = verdicts_over_time(quiet, ctx.options.detector);
      svg::line_series line;
      line.name = k.label(v);
      line.css_class = ctx.colour(k.variants[v].implementation);
      line.dashed = k.variants[v].implementation == "torch";
      for (std::size_t i = 0; i < s->points.size(); ++i) {
        const auto& p = s->points[i];
        const auto& d = quiet_verdicts[quiet_index[i]];
        svg::line_point lp;
        lp.run = k.run_index(p.run);
        lp.value = p.median;
        lp.disturbed = disturbed.contains(s->key, p.run);
        lp.mark = lp.disturbed ? svg::point_mark::none : mark_of(d.status);
        lp.tooltip = fmt::format("{}: {} {} ms ({}); {}", line.name, shape, svg::format_number(p.median, 4),
                                 run_text(p.run),
                                 lp.disturbed ? "timed on a busy machine: not judged" : verdict_text(d));
        line.points.push_back(std::move(lp));
      }
      flags.push_back(
          {k.name, shape, line.name, verdict_text(quiet_verdicts.back()), quiet_verdicts.back().status});
      chart.series.push_back(std::move(line));
    }
    if (chart.series.empty()) continue;
    any = true;
    out += fmt::format(
        "<figure class=\"latency\" data-shape=\"{0}\"><figcaption><b>{0}</b></figcaption>{1}"
        "</figure>\n",
        svg::escape(shape), svg::render(chart));
  }
  if (!any) out += "<p class=\"empty\">No latency measured (every shape failed or was not run).</p>\n";
  return out + "</div>\n";
}

}  // namespace kbench::report::detail
