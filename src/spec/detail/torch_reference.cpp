#include "spec/detail/torch_reference.hpp"

namespace kbench::spec::detail {

namespace {
torch_reference_compiler& compiler_slot() {
  static torch_reference_compiler compiler;  // set during static initialization, read after main starts
  return compiler;
}
}  // namespace

void set_torch_reference_compiler(torch_reference_compiler compiler) {
  compiler_slot() = std::move(compiler);
}

const torch_reference_compiler& registered_torch_reference_compiler() {
  return compiler_slot();
}

}  // namespace kbench::spec::detail
