#pragma once
// Binding a spec kernel's source on a device: program, arguments in the spec's order, launch sizes.

#include <kbench/build_config.hpp>
#include <kbench/spec/kernel_spec.hpp>
#include <kbench/suite/kernel.hpp>

#include <cstddef>
#include <memory>
#include <vector>

namespace kbench::spec::detail {

/// [bytes] The guard region past every output of a spec kernel (kernel_definition::output_guard_bytes):
/// an argument size smaller than the kernel's use is caught as an out-of-bounds write, up to this far past
/// the end (farther writes may land in other memory or crash the worker, which is recorded too).
constexpr std::size_t output_guard_bytes = 64 * 1024;

/// Work-items per dimension and the work-group size, for one shape and config.
struct launch_geometry {
  std::vector<std::size_t> global;  // a multiple of local in each dimension
  std::vector<std::size_t> local;
};

/// The launch sizes: global rounded up to a multiple of local (Kernel Tuner's grid); throws usage_error for
/// a size below 1.
[[nodiscard]] launch_geometry evaluate_launch(const kernel_spec& spec, const bindings& values);

/// The dimensions and the config as expression values.
[[nodiscard]] bindings expression_values(const kernel_spec& spec, const suite::kernel_args& args);

/// The output buffers of a binding, in the order of the spec's out arguments (kernel_args::outputs when
/// given).
[[nodiscard]] std::vector<buffer_ptr> spec_outputs(const kernel_spec& spec, const suite::kernel_args& args);

/// Sets the arguments of `kernel` (an opencl_kernel or a cuda_function) in the spec's order: the inputs
/// (args.inputs), the outputs, and each scalar's value for `values`.
template <class Kernel>
void set_arguments(Kernel& kernel, const kernel_spec& spec, const suite::kernel_args& args,
                   const std::vector<buffer_ptr>& outputs, const bindings& values) {
  std::size_t next_input = 0, next_output = 0;
  for (std::size_t i = 0; i < spec.arguments.size(); ++i) {
    const argument& a = spec.arguments[i];
    const auto index = static_cast<unsigned>(i);
    if (a.role == argument_role::in) {
      kernel.set_arg(index, args.inputs.at(next_input++));
    } else if (a.role == argument_role::out) {
      kernel.set_arg(index, outputs.at(next_output++));
    } else if (a.dtype == "float32") {
      kernel.set_arg_f32(index, static_cast<float>(a.value->evaluate(values)));
    } else if (a.dtype == "int64") {
      kernel.set_arg_i64(index, a.value->evaluate_integer(values));
    } else {
      kernel.set_arg_i32(index, static_cast<std::int32_t>(a.value->evaluate_integer(values)));
    }
  }
}

#if KBENCH_HAS_OPENCL
[[nodiscard]] suite::launcher bind_opencl(const std::shared_ptr<const kernel_spec>& spec,
                                          const suite::kernel_args& args);
#endif
#if KBENCH_HAS_CUDA
[[nodiscard]] suite::launcher bind_cuda(const std::shared_ptr<const kernel_spec>& spec,
                                        const suite::kernel_args& args);
#endif

}  // namespace kbench::spec::detail
