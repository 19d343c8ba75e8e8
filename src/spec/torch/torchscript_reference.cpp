// [reference] torch of a spec: the TorchScript function `reference` compiled with libtorch's TorchScript
// compiler (torch::jit::compile) and run on the CPU. It takes every input buffer as a flat float32 tensor,
// in argument order, then the shape's extents as ints, in the order of dims, and returns a tensor (one
// output) or a tuple of tensors (one per out argument, in order), flattened and converted to float32.

#include <kbench/error.hpp>

#include "spec/detail/torch_reference.hpp"

#include <fmt/format.h>
#include <torch/jit.h>

#include <cstring>
#include <memory>

namespace kbench::spec::detail {

namespace {

host_tensor to_host_tensor(const at::Tensor& t) {
  const at::Tensor flat = t.detach().to(at::kCPU, at::kFloat).contiguous().reshape({-1});
  host_tensor out(kbench::shape{flat.numel()});
  std::memcpy(out.values.data(), flat.data_ptr<float>(), out.bytes());
  return out;
}

torch_reference compile_reference(const std::string& script, const std::string& origin) {
  std::shared_ptr<torch::jit::CompilationUnit> unit;
  try {
    unit = torch::jit::compile(script);
  } catch (const std::exception& e) {
    throw usage_error(fmt::format("{}: the TorchScript reference does not compile: {}", origin, e.what()));
  }
  if (unit->find_function("reference") == nullptr) {
    throw usage_error(fmt::format("{}: the TorchScript reference defines no function 'reference'", origin));
  }
  return [unit, origin](const std::vector<host_tensor>& inputs, const kbench::shape& dims) {
    std::vector<c10::IValue> arguments;
    for (const host_tensor& input : inputs) {
      const auto elements = static_cast<std::int64_t>(input.size());
      arguments.emplace_back(
          at::from_blob(const_cast<float*>(input.values.data()), {elements}, at::kFloat).clone());
    }
    for (const std::int64_t extent : dims) arguments.emplace_back(extent);
    c10::IValue result;
    try {
      result = unit->get_function("reference")(arguments);
    } catch (const std::exception& e) {
      throw usage_error(fmt::format("{}: the TorchScript reference failed: {}", origin, e.what()));
    }
    std::vector<host_tensor> outputs;
    if (result.isTensor()) {
      outputs.push_back(to_host_tensor(result.toTensor()));
    } else if (result.isTuple()) {
      for (const c10::IValue& element : result.toTupleRef().elements()) {
        if (!element.isTensor()) {
          throw usage_error(fmt::format("{}: the TorchScript reference returned a tuple holding a {}", origin,
                                        element.tagKind()));
        }
        outputs.push_back(to_host_tensor(element.toTensor()));
      }
    } else {
      throw usage_error(
          fmt::format("{}: the TorchScript reference returned a {}, not a tensor or a tuple of tensors",
                      origin, result.tagKind()));
    }
    return outputs;
  };
}

[[maybe_unused]] const bool registered = (set_torch_reference_compiler(compile_reference), true);

}  // namespace

}  // namespace kbench::spec::detail
