#pragma once
// Comparison of a kernel's outputs with the torch reference, in float32.

#include <kbench/host_tensor.hpp>
#include <kbench/suite/kernel.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace kbench {

struct accuracy_report {
  bool passed = false;
  std::size_t elements = 0;
  std::size_t mismatches =
      0;  // elements outside atol + rtol * |want| (NaN where the reference is not NaN counts)
  double max_abs_error = 0;
  double max_rel_error = 0;  // |got - want| / |want|, over elements with want != 0
  std::string message;       // empty when passed; otherwise what failed, with the numbers
};

/// Compares every output with its reference; shapes must match element counts.
[[nodiscard]] accuracy_report check_accuracy(const std::vector<host_tensor>& got,
                                             const std::vector<host_tensor>& want, const tolerance& tol);

}  // namespace kbench
