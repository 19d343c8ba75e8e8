#include <kbench/error.hpp>
#include <kbench/suite/registry.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <mutex>

namespace kbench::suite {

namespace {
/// Function-local so that kernels registering from other translation units never see them uninitialized.
std::vector<kernel_definition>& registered_kernels() {
  static std::vector<kernel_definition> kernels;
  return kernels;
}
std::vector<kernel_definition>& pending_extensions() {
  static std::vector<kernel_definition> extensions;
  return extensions;
}

void apply_extension(std::vector<kernel_definition>& kernels, kernel_definition extra) {
  const auto kernel =
      std::find_if(kernels.begin(), kernels.end(), [&](const auto& k) { return k.name == extra.name; });
  if (kernel == kernels.end())
    KBENCH_THROW("an extension names kernel '{}', which is not registered", extra.name);
  if (extra.reference) kernel->reference = std::move(extra.reference);
  for (auto& impl : extra.implementations) {
    if (kernel->find(impl.backend) != nullptr) {
      KBENCH_THROW("kernel '{}': {} is implemented twice", kernel->name, to_string(impl.backend));
    }
    kernel->implementations.push_back(std::move(impl));
  }
}

/// The registered kernels with their extensions applied. Registration happens during static
/// initialization, before main, so the first read sees every extension. An extension that does not fit
/// throws once, after the others are applied.
std::vector<kernel_definition>& registry() {
  static std::mutex applying;
  const std::lock_guard lock(applying);
  auto& kernels = registered_kernels();
  std::vector<kernel_definition> pending;
  pending.swap(pending_extensions());
  std::string failed;
  for (auto& extra : pending) {
    try {
      apply_extension(kernels, std::move(extra));
    } catch (const error& e) {
      if (failed.empty()) failed = e.what();
    }
  }
  if (!failed.empty()) throw error(failed);
  return kernels;
}
}  // namespace

const implementation* kernel_definition::find(backend_kind backend) const {
  for (const auto& impl : implementations) {
    if (impl.backend == backend) return &impl;
  }
  return nullptr;
}

kernel_builder::kernel_builder(std::string name) {
  m_def.name = std::move(name);
}

kernel_builder& kernel_builder::describe(std::string text) {
  m_def.description = std::move(text);
  return *this;
}

kernel_builder& kernel_builder::shapes(std::vector<shape> list) {
  m_def.shapes = std::move(list);
  return *this;
}

kernel_builder& kernel_builder::inputs(
    std::function<std::vector<host_tensor>(const shape&, std::uint64_t)> make) {
  m_def.make_inputs = std::move(make);
  return *this;
}

kernel_builder& kernel_builder::reference(
    std::function<std::vector<host_tensor>(const std::vector<host_tensor>&)> fn) {
  m_def.reference = std::move(fn);
  return *this;
}

kernel_builder& kernel_builder::tolerance(double atol, double rtol, double max_mismatch_fraction) {
  m_def.tolerance = kbench::suite::tolerance{atol, rtol, max_mismatch_fraction};
  return *this;
}

kernel_builder& kernel_builder::bytes_moved(std::function<double(const shape&)> fn) {
  m_def.bytes_moved = std::move(fn);
  return *this;
}

kernel_builder& kernel_builder::flops(std::function<double(const shape&)> fn) {
  m_def.flops = std::move(fn);
  return *this;
}

kernel_builder& kernel_builder::implement(backend_kind backend, implementation_factory bind,
                                          config default_config, std::string baseline_form) {
  implementation impl;
  impl.backend = backend;
  impl.bind = std::move(bind);
  impl.default_config = std::move(default_config);
  impl.baseline_form = std::move(baseline_form);
  m_def.implementations.push_back(std::move(impl));
  return *this;
}

kernel_builder& kernel_builder::tune(backend_kind backend, tuning_space_factory space) {
  for (auto& impl : m_def.implementations) {
    if (impl.backend == backend) {
      impl.tuning_space = std::move(space);
      return *this;
    }
  }
  KBENCH_THROW("kernel '{}': tune({}) before implement({})", m_def.name, to_string(backend),
               to_string(backend));
}

kernel_builder& kernel_builder::source_hash(std::string hash) {
  m_def.source_hash = std::move(hash);
  return *this;
}

kernel_definition kernel_builder::build() && {
  return std::move(m_def);
}

bool register_kernel(kernel_definition def) {
  if (def.name.empty() || def.shapes.empty() || !def.make_inputs) {
    KBENCH_THROW("kernel '{}' needs a name, shapes and inputs", def.name);
  }
  auto& kernels = registered_kernels();
  for (const auto& k : kernels) {
    if (k.name == def.name) KBENCH_THROW("kernel '{}' is registered twice", def.name);
  }
  kernels.push_back(std::move(def));
  std::sort(kernels.begin(), kernels.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return true;
}

bool register_kernel_extension(kernel_definition extra) {
  pending_extensions().push_back(std::move(extra));
  return true;
}

const std::vector<kernel_definition>& all_kernels() {
  return registry();
}

const kernel_definition& find_kernel(std::string_view name) {
  std::vector<std::string> names;
  for (const auto& k : registry()) {
    if (k.name == name) return k;
    names.push_back(k.name);
  }
  throw usage_error(fmt::format("unknown kernel '{}' (valid: {})", name, fmt::join(names, ", ")));
}

}  // namespace kbench::suite
