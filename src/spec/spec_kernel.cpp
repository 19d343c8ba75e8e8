#include <kbench/backends/registry.hpp>
#include <kbench/error.hpp>
#include <kbench/spec/spec_kernel.hpp>
#include <kbench/suite/bound_kernel.hpp>
#include <kbench/suite/registry.hpp>

#include "spec/detail/npy.hpp"
#include "spec/detail/spec_binding.hpp"
#include "spec/detail/torch_reference.hpp"

#include <fmt/format.h>

#include <cmath>
#include <memory>
#include <mutex>
#include <optional>

namespace kbench::spec {
using namespace kbench::suite;  // the suite's kernel API, unqualified

namespace {

using spec_ptr = std::shared_ptr<const kernel_spec>;

/// A flat tensor of `elements` values filled as `init` says, from `seed`.
host_tensor make_input(const argument& a, std::int64_t elements, const kbench::shape& s, std::uint64_t seed) {
  const kbench::shape flat{elements};
  const initializer& init = a.init;
  switch (init.how) {
    case initializer::kind::uniform:
      return uniform_tensor(flat, seed, static_cast<float>(init.first), static_cast<float>(init.second));
    case initializer::kind::normal: {  // Box-Muller over two seeded uniform streams
      const host_tensor u1 = uniform_tensor(flat, seed, 0.0f, 1.0f);
      const host_tensor u2 = uniform_tensor(flat, seed ^ 0x5bd1e995u, 0.0f, 1.0f);
      host_tensor t(flat);
      for (std::size_t i = 0; i < t.values.size(); ++i) {
        const double radius = std::sqrt(-2.0 * std::log(1.0 - static_cast<double>(u1.values[i])));
        t.values[i] = static_cast<float>(
            init.first + init.second * radius * std::cos(2.0 * M_PI * static_cast<double>(u2.values[i])));
      }
      return t;
    }
    case initializer::kind::zeros:
      return host_tensor(flat);
    case initializer::kind::constant: {
      host_tensor t(flat);
      std::fill(t.values.begin(), t.values.end(), static_cast<float>(init.first));
      return t;
    }
    case initializer::kind::npy: {
      host_tensor t = detail::read_npy(with_shape(init.npy_file, s));
      if (static_cast<std::int64_t>(t.size()) != elements) {
        throw usage_error(fmt::format("{}: input '{}' has {} values, its size for shape {} is {}",
                                      with_shape(init.npy_file, s), a.name, t.size(), to_string(s),
                                      elements));
      }
      t.shape = flat;
      return t;
    }
  }
  return host_tensor(flat);
}

std::vector<host_tensor> make_inputs(const kernel_spec& spec, const kbench::shape& s, std::uint64_t seed) {
  const bindings dims = shape_bindings(spec, s);
  std::vector<host_tensor> inputs;
  std::uint64_t stream = 0;
  for (const auto& a : spec.arguments) {
    if (a.role != argument_role::in) continue;
    const std::int64_t elements = a.size->evaluate_integer(dims);
    if (elements < 1)
      throw usage_error(fmt::format("{}: input '{}' has size {}", spec.file.string(), a.name, elements));
    inputs.push_back(make_input(a, elements, s, seed + stream++));
  }
  return inputs;
}

std::vector<std::int64_t> output_sizes(const kernel_spec& spec, const kbench::shape& s) {
  const bindings dims = shape_bindings(spec, s);
  std::vector<std::int64_t> sizes;
  for (const auto& a : spec.arguments) {
    if (a.role == argument_role::out) sizes.push_back(a.size->evaluate_integer(dims));
  }
  return sizes;
}

/// The expected outputs from .npy files, checked against the outputs' sizes.
std::vector<host_tensor> npy_reference(const kernel_spec& spec, const kbench::shape& s) {
  const std::vector<std::int64_t> sizes = output_sizes(spec, s);
  std::vector<host_tensor> expected;
  for (const auto& a : spec.arguments) {
    if (a.role != argument_role::out) continue;
    const std::string file = with_shape(spec.reference_npy.at(a.name), s);
    host_tensor t = detail::read_npy(file);
    const std::int64_t want = sizes[expected.size()];
    if (static_cast<std::int64_t>(t.size()) != want) {
      throw usage_error(fmt::format("{}: expected output '{}' has {} values, its size for shape {} is {}",
                                    file, a.name, t.size(), to_string(s), want));
    }
    t.shape = {want};
    expected.push_back(std::move(t));
  }
  return expected;
}

/// The expected outputs from the spec's TorchScript reference, checked against the outputs' count and sizes.
std::vector<host_tensor> torch_reference_outputs(const kernel_spec& spec,
                                                 const detail::torch_reference& reference,
                                                 const kbench::shape& s,
                                                 const std::vector<host_tensor>& inputs) {
  std::vector<host_tensor> expected = reference(inputs, s);
  const std::vector<std::int64_t> sizes = output_sizes(spec, s);
  const std::string origin = fmt::format("{}:{}", spec.file.string(), spec.reference_torch_line);
  if (expected.size() != sizes.size()) {
    throw usage_error(fmt::format("{}: the TorchScript reference returned {} outputs, the kernel has {}",
                                  origin, expected.size(), sizes.size()));
  }
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    if (static_cast<std::int64_t>(expected[i].size()) != sizes[i]) {
      throw usage_error(
          fmt::format("{}: the TorchScript reference's output {} has {} values, its size for shape {} is {}",
                      origin, i, expected[i].size(), to_string(s), sizes[i]));
    }
  }
  return expected;
}

/// The position of argument `name` among the arguments of `role` (the order of the inputs or outputs).
std::optional<std::size_t> position_of(const std::vector<argument>& arguments, argument_role role,
                                       const std::string& name) {
  std::size_t position = 0;
  for (const auto& a : arguments) {
    if (a.role != role) continue;
    if (a.name == name) return position;
    ++position;
  }
  return std::nullopt;
}

/// The outputs of the reference spec's kernel at its default config, on the first backend both specs have
/// a source for, with this kernel's inputs passed by argument name.
std::vector<host_tensor> kernel_reference(const kernel_spec& spec, const kernel_spec& reference,
                                          const kbench::shape& s, const std::vector<host_tensor>& inputs) {
  const kernel_definition definition = make_kernel_definition(reference);
  if (definition.implementations.empty()) {
    throw usage_error(
        fmt::format("{}: the reference spec has no source this build can run", spec.file.string()));
  }
  std::vector<host_tensor> reference_inputs;
  for (const auto& want : reference.arguments) {
    if (want.role != argument_role::in) continue;
    const auto input = position_of(spec.arguments, argument_role::in, want.name);
    if (!input) {
      throw usage_error(fmt::format("{}: the reference's input '{}' is not an input of kernel '{}'",
                                    reference.file.string(), want.name, spec.name));
    }
    reference_inputs.push_back(inputs.at(*input));
  }
  const implementation& impl = definition.implementations.front();
  const bound_kernel bound(definition, impl, open_device(impl.backend), s, reference_inputs);
  std::vector<host_tensor> produced = bound.run_and_read();
  // This kernel's outputs, in its order, from the reference's outputs of the same names.
  std::vector<host_tensor> expected;
  for (const auto& a : spec.arguments) {
    if (a.role != argument_role::out) continue;
    const auto output = position_of(reference.arguments, argument_role::out, a.name);
    if (!output) {
      throw usage_error(fmt::format("{}: the reference has no output '{}' (kernel '{}')",
                                    reference.file.string(), a.name, spec.name));
    }
    expected.push_back(std::move(produced.at(*output)));
  }
  return expected;
}

/// The spec's tuning space for one shape: its parameters, its constraints, and the device's work-group
/// limit.
tune::space tuning_space(const spec_ptr& spec, const kbench::shape& s) {
  tune::space space;
  for (const auto& p : spec->parameters) space.add(tune::parameter::integers(p.name, p.values));
  const bindings dims = shape_bindings(*spec, s);
  for (const auto& c : spec->constraints) {
    space.add_constraint(c.text(), [c, dims](const config& values, const device_info&) {
      bindings all = dims;
      for (const auto& [name, value] : values) all[name] = value;
      return c.evaluate(all) != 0.0;
    });
  }
  space.add_constraint("work-group size <= device maximum",
                       [spec, dims](const config& values, const device_info& device) {
                         if (device.max_work_group_size == 0) return true;
                         bindings all = dims;
                         for (const auto& [name, value] : values) all[name] = value;
                         std::int64_t size = 1;
                         for (const auto& l : spec->local) size *= l.evaluate_integer(all);
                         return size <= static_cast<std::int64_t>(device.max_work_group_size);
                       });
  space.set_default(spec->default_config);
  return space;
}

void add_implementation(kernel_builder& builder, const spec_ptr& spec, backend_kind backend,
                        implementation_factory bind) {
  builder.implement(backend, std::move(bind), spec->default_config);
  if (!spec->parameters.empty()) {
    builder.tune(backend, [spec](const kbench::shape& s) { return tuning_space(spec, s); });
  }
}

}  // namespace

kernel_definition make_kernel_definition(const kernel_spec& source) {
  const auto spec = std::make_shared<const kernel_spec>(source);
  kernel_builder builder(spec->name);
  builder
      .describe(spec->description.empty() ? fmt::format("from {}", spec->file.filename().string())
                                          : spec->description)
      .shapes(spec->shapes)
      .inputs([spec](const kbench::shape& s, std::uint64_t seed) { return make_inputs(*spec, s, seed); })
      .tolerance(spec->tolerance.atol, spec->tolerance.rtol, spec->tolerance.max_mismatch_fraction)
      .bytes_moved([spec](const kbench::shape& s) {
        const bindings dims = shape_bindings(*spec, s);
        double bytes = 0;
        for (const auto& a : spec->arguments) {
          if (a.size) bytes += static_cast<double>(a.size->evaluate_integer(dims)) * sizeof(float);
        }
        return bytes;
      })
      .source_hash(spec->content_hash);
#if KBENCH_HAS_OPENCL
  if (spec->opencl) {
    add_implementation(builder, spec, backend_kind::opencl,
                       [spec](const kernel_args& args) { return detail::bind_opencl(spec, args); });
  }
#endif
#if KBENCH_HAS_CUDA
  if (spec->cuda) {
    add_implementation(builder, spec, backend_kind::cuda,
                       [spec](const kernel_args& args) { return detail::bind_cuda(spec, args); });
  }
#endif
  kernel_definition definition = std::move(builder).build();
  definition.definition_file = spec->file.string();
  definition.output_guard_bytes = detail::output_guard_bytes;
  if (!spec->reference_npy.empty()) {
    definition.reference_label = "the expected outputs (.npy)";
    definition.shaped_reference = [spec](const kbench::shape& s, const std::vector<host_tensor>&) {
      return npy_reference(*spec, s);
    };
  } else if (!spec->reference_torch.empty()) {
    const std::string origin = fmt::format("{}:{}", spec->file.string(), spec->reference_torch_line);
    const detail::torch_reference_compiler& compile = detail::registered_torch_reference_compiler();
    if (!compile) {
      throw usage_error(fmt::format(
          "{}: [reference] torch needs a kbench built with libtorch, and this one has none (use spec or npy)",
          origin));
    }
    const detail::torch_reference reference = compile(spec->reference_torch, origin);
    definition.reference_label = "the TorchScript reference";
    definition.shaped_reference = [spec, reference](const kbench::shape& s,
                                                    const std::vector<host_tensor>& inputs) {
      return torch_reference_outputs(*spec, reference, s, inputs);
    };
  } else if (!spec->reference_spec.empty()) {
    const auto reference =
        std::make_shared<const kernel_spec>(read_spec(spec->reference_spec, spec_use::reference));
    definition.reference_label = fmt::format("the reference kernel {}", reference->name);
    definition.shaped_reference = [spec, reference](const kbench::shape& s,
                                                    const std::vector<host_tensor>& inputs) {
      return kernel_reference(*spec, *reference, s, inputs);
    };
  }
  return definition;
}

std::string load_spec_kernel(const std::filesystem::path& file) {
  static std::mutex loading;
  const std::lock_guard lock(loading);
  kernel_spec spec = read_spec(file);
  for (const auto& k : all_kernels()) {
    if (k.name != spec.name) continue;
    if (k.definition_file == spec.file.string()) return spec.name;
    throw usage_error(fmt::format(
        "{}: kernel '{}' is already defined{}", spec.file.string(), spec.name,
        k.definition_file.empty() ? " (a built-in kernel)" : fmt::format(" by {}", k.definition_file)));
  }
  register_kernel(make_kernel_definition(spec));
  return spec.name;
}

}  // namespace kbench::spec
