#pragma once
// The parts of a kernel's section of the HTML report, one concept per file (private to src/report).

#include <kbench/report/html_report.hpp>

#include "report/report_model.hpp"

#include <string>
#include <vector>

namespace kbench::report::detail {

/// What every panel draws with: the report's options and the implementations' colours.
struct panel_context {
  const html_report_options& options;
  const palette& colour;
};

/// kbench against the torch baseline per shape (speedup_panel.cpp).
[[nodiscard]] std::string speedup_panel(const kernel_view& k);
/// % of peak bandwidth, % of the triad timed beside, or GFLOP/s (bandwidth_panels.cpp).
[[nodiscard]] std::string bandwidth_panel(const kernel_view& k, const panel_context& ctx);
/// Wall latency over the runs per shape; appends the newest verdict of every line to `flags`
/// (latency_panels.cpp).
[[nodiscard]] std::string latency_panels(const kernel_view& k, const panel_context& ctx,
                                         std::vector<flag>& flags);
/// The three measures of the newest run (measures_table.cpp).
[[nodiscard]] std::string measures_table(const kernel_view& k, const panel_context& ctx);

}  // namespace kbench::report::detail
