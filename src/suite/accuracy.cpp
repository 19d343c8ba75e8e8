#include <kbench/suite/accuracy.hpp>

#include <fmt/format.h>

#include <cmath>

namespace kbench {

accuracy_report check_accuracy(const std::vector<host_tensor>& got, const std::vector<host_tensor>& want,
                               const tolerance& tol) {
  accuracy_report report;
  if (got.size() != want.size()) {
    report.message = fmt::format("{} outputs, the reference has {}", got.size(), want.size());
    return report;
  }
  for (std::size_t o = 0; o < got.size(); ++o) {
    if (got[o].size() != want[o].size()) {
      report.message =
          fmt::format("output {} has {} elements, the reference has {}", o, got[o].size(), want[o].size());
      return report;
    }
    for (std::size_t i = 0; i < got[o].size(); ++i) {
      const float g = got[o].values[i];
      const float w = want[o].values[i];
      ++report.elements;
      if (std::isnan(w) && std::isnan(g)) continue;
      const float diff = std::fabs(g - w);
      if (std::isnan(diff)) {
        ++report.mismatches;
        continue;
      }
      report.max_abs_error = std::max(report.max_abs_error, static_cast<double>(diff));
      if (w != 0.0f)
        report.max_rel_error = std::max(report.max_rel_error, static_cast<double>(diff / std::fabs(w)));
      if (static_cast<double>(diff) > tol.atol + tol.rtol * std::fabs(static_cast<double>(w)))
        ++report.mismatches;
    }
  }
  const double fraction = report.elements == 0
                              ? 0.0
                              : static_cast<double>(report.mismatches) / static_cast<double>(report.elements);
  report.passed = fraction <= tol.max_mismatch_fraction;
  if (!report.passed) {
    report.message = fmt::format(
        "{} of {} elements mismatch ({:.3g}% > allowed {:.3g}%), max abs error {:.3g}, max rel error {:.3g} "
        "(atol {:g}, rtol {:g})",
        report.mismatches, report.elements, 100.0 * fraction, 100.0 * tol.max_mismatch_fraction,
        report.max_abs_error, report.max_rel_error, tol.atol, tol.rtol);
  }
  return report;
}

}  // namespace kbench
