#include <kbench/error.hpp>

#include "spec/detail/spec_binding.hpp"

#include <fmt/format.h>

namespace kbench::spec::detail {
using namespace kbench::suite;  // the suite's kernel API, unqualified

launch_geometry evaluate_launch(const kernel_spec& spec, const bindings& values) {
  launch_geometry geometry;
  for (std::size_t d = 0; d < spec.global.size(); ++d) {
    const std::int64_t global = spec.global[d].evaluate_integer(values);
    const std::int64_t local = spec.local[d].evaluate_integer(values);
    if (global < 1 || local < 1) {
      throw usage_error(fmt::format("{}: launch dimension {}: global {} and local {} must be at least 1",
                                    spec.file.string(), d, global, local));
    }
    geometry.local.push_back(static_cast<std::size_t>(local));
    geometry.global.push_back(static_cast<std::size_t>((global + local - 1) / local * local));
  }
  return geometry;
}

bindings expression_values(const kernel_spec& spec, const kernel_args& args) {
  bindings values = shape_bindings(spec, args.shape);
  for (const auto& [name, value] : args.config) values[name] = value;
  return values;
}

std::vector<buffer_ptr> spec_outputs(const kernel_spec& spec, const kernel_args& args) {
  const bindings dims = shape_bindings(spec, args.shape);
  std::vector<buffer_ptr> outputs;
  for (const auto& a : spec.arguments) {
    if (a.role != argument_role::out) continue;
    const std::int64_t elements = a.size->evaluate_integer(dims);
    outputs.push_back(output_buffer(args, outputs.size(),
                                    static_cast<std::size_t>(elements) * sizeof(float) + output_guard_bytes));
  }
  return outputs;
}

}  // namespace kbench::spec::detail
