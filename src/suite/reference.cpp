#include <kbench/backends/registry.hpp>
#include <kbench/error.hpp>
#include <kbench/suite/bound_kernel.hpp>
#include <kbench/suite/reference.hpp>

namespace kbench::suite {

std::vector<host_tensor> reference_outputs(const kernel_definition& kernel, const shape& s,
                                           const std::vector<host_tensor>& inputs) {
  if (kernel.shaped_reference) return kernel.shaped_reference(s, inputs);
  if (kernel.reference) return kernel.reference(inputs);
  const implementation* cpu = kernel.find(backend_kind::cpu);
  if (cpu == nullptr) {
    KBENCH_THROW("kernel '{}' has no reference and no cpu implementation to check results against",
                 kernel.name);
  }
  return bound_kernel(kernel, *cpu, open_device(backend_kind::cpu), s, inputs).run_and_read();
}

std::string reference_name(const kernel_definition& kernel) {
  if (!kernel.reference_label.empty()) return kernel.reference_label;
  return kernel.reference ? "torch" : "the cpu implementation";
}

}  // namespace kbench::suite
