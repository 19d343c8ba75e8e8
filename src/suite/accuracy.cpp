#include <kbench/suite/accuracy.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace kbench::suite {

namespace {

// Adds one output's elements to `report`, in the values' own precision (float32 outputs are not widened:
// their rounding is what the tolerance is for).
template <typename T>
void compare_elements(std::span<const T> got, std::span<const T> want, const tolerance& tol,
                      accuracy_report& report) {
  for (std::size_t i = 0; i < got.size(); ++i) {
    const T g = got[i];
    const T w = want[i];
    ++report.elements;
    if (std::isnan(w) && std::isnan(g)) continue;
    const T diff = std::fabs(g - w);
    if (std::isnan(diff)) {
      ++report.mismatches;
      continue;
    }
    report.max_abs_error = std::max(report.max_abs_error, static_cast<double>(diff));
    if (w != T(0))
      report.max_rel_error = std::max(report.max_rel_error, static_cast<double>(diff / std::fabs(w)));
    if (static_cast<double>(diff) > tol.atol + tol.rtol * std::fabs(static_cast<double>(w)))
      ++report.mismatches;
  }
}

accuracy_report finished(accuracy_report report, const tolerance& tol) {
  const double fraction = report.elements == 0
                              ? 0.0
                              : static_cast<double>(report.mismatches) / static_cast<double>(report.elements);
  report.passed = fraction <= tol.max_mismatch_fraction;
  if (!report.passed) {
    report.message = fmt::format(
        "{} of {} elements outside atol {:g} + rtol {:g} ({:.3g}% > allowed {:.3g}%), max abs error {:.3g}, "
        "max rel error {:.3g}",
        report.mismatches, report.elements, tol.atol, tol.rtol, 100.0 * fraction,
        100.0 * tol.max_mismatch_fraction, report.max_abs_error, report.max_rel_error);
  }
  return report;
}

}  // namespace

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
    compare_elements<float>(got[o].values, want[o].values, tol, report);
  }
  return finished(std::move(report), tol);
}

accuracy_report check_accuracy(std::span<const output_values> got, std::span<const output_values> want,
                               const tolerance& tol) {
  accuracy_report report;
  if (got.size() != want.size()) {
    report.message = fmt::format("{} outputs, the reference has {}", got.size(), want.size());
    return report;
  }
  for (std::size_t o = 0; o < got.size(); ++o) {
    if (got[o].shape != want[o].shape || got[o].values.size() != want[o].values.size()) {
      report.message = fmt::format("output {} has shape {}, the reference's is {}", o,
                                   to_string(got[o].shape), to_string(want[o].shape));
      return report;
    }
    compare_elements<double>(got[o].values, want[o].values, tol, report);
  }
  return finished(std::move(report), tol);
}

}  // namespace kbench::suite
