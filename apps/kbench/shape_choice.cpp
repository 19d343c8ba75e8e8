#include "shape_choice.hpp"

#include <kbench/error.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <vector>

namespace kbench::cli {
using namespace kbench::suite;  // the suite's kernel API, unqualified

std::size_t choose_shape_index(const kernel_definition& kernel, const std::string& shape_text,
                               int shape_index) {
  std::vector<std::string> valid;
  for (const auto& s : kernel.shapes) valid.push_back(to_string(s));
  if (shape_index >= 0 || shape_text.empty()) {
    const int index = shape_index < 0 ? 0 : shape_index;
    if (static_cast<std::size_t>(index) >= kernel.shapes.size()) {
      throw usage_error(fmt::format("shape index {} out of range for kernel '{}' (valid: 0..{}: {})", index,
                                    kernel.name, kernel.shapes.size() - 1, fmt::join(valid, " ")));
    }
    return static_cast<std::size_t>(index);
  }
  const shape wanted = parse_shape(shape_text);
  for (std::size_t i = 0; i < kernel.shapes.size(); ++i) {
    if (kernel.shapes[i] == wanted) return i;
  }
  throw usage_error(fmt::format("unknown shape {} for kernel '{}' (valid: {})", to_string(wanted),
                                kernel.name, fmt::join(valid, " ")));
}

}  // namespace kbench::cli
