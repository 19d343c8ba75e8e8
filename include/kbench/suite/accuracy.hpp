#pragma once
// Comparison of a kernel's outputs with its reference: every element within atol + rtol * |reference|, NaN
// only where the reference has NaN, at most max_mismatch_fraction of them outside. One rule for every
// kernel: the C++ kernels' float32 outputs, and a Python kernel's outputs of any dtype (as float64, through
// the binding).

#include <kbench/host_tensor.hpp>
#include <kbench/suite/kernel.hpp>

#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace kbench::suite {

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

/// One output (or its reference) as float64 values in row-major order, with its shape. Every NumPy dtype
/// converts to it exactly (integers up to 2^53), so outputs keep their own dtype's values.
struct output_values {
  std::span<const double> values;
  kbench::shape shape;
};

/// As above for outputs of any dtype; shapes must match exactly.
[[nodiscard]] accuracy_report check_accuracy(std::span<const output_values> got,
                                             std::span<const output_values> want, const tolerance& tol);

}  // namespace kbench::suite
