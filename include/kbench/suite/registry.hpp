#pragma once
// The kernel registry and the builder that kernels register through.
//
// **Example** (kernels/exp/exp.cpp):
//   KBENCH_KERNEL(exp) {
//     return kbench::suite::kernel_builder("exp")
//         .describe("y = exp(x), elementwise")
//         .shapes({{1024}, {4096}, {104857600}})
//         .inputs([](const kbench::shape& s, std::uint64_t seed) { ... })
//         .reference(&exp_reference)
//         .implement(kbench::backend_kind::cpu, &bind_exp_cpu, {{"GRAIN", 65536}});
//   }

#include <kbench/suite/kernel.hpp>

#include <string_view>
#include <utility>
#include <vector>

namespace kbench::suite {

class kernel_builder {
 public:
  explicit kernel_builder(std::string name);
  kernel_builder& describe(std::string text);
  kernel_builder& shapes(std::vector<shape> list);
  kernel_builder& inputs(std::function<std::vector<host_tensor>(const shape&, std::uint64_t)> make);
  kernel_builder& reference(std::function<std::vector<host_tensor>(const std::vector<host_tensor>&)> fn);
  kernel_builder& tolerance(double atol, double rtol, double max_mismatch_fraction = 0);
  kernel_builder& bytes_moved(std::function<double(const shape&)> fn);
  /// Floating-point operations per call (kernel_definition::flops).
  kernel_builder& flops(std::function<double(const shape&)> fn);
  kernel_builder& implement(backend_kind backend, implementation_factory bind, config default_config = {},
                            std::string baseline_form = {});
  /// The tuning space of the implementation for `backend` (implement() it first); `kbench tune` and
  /// `kbench run --effort quick|full` search it.
  kernel_builder& tune(backend_kind backend, tuning_space_factory space);
  kernel_builder& source_hash(std::string hash);
  [[nodiscard]] kernel_definition build() &&;

 private:
  kernel_definition m_def;
};

/// Adds a kernel; throws kbench::error on a duplicate name or a definition missing shapes or inputs. A
/// kernel without a reference is checked against its cpu implementation (reference.hpp).
bool register_kernel(kernel_definition def);

/// Adds to the kernel of the same name what `extra` sets: its reference (when set) and its implementations.
/// This is how a kernel's parts that need an optional library join it: kernels/<name>/torch.cpp, built only
/// with libtorch, gives the torch reference and baseline. Applied when the registry is first read; throws
/// kbench::error there for an unknown kernel or a backend implemented twice.
bool register_kernel_extension(kernel_definition extra);

/// Every registered kernel, sorted by name.
[[nodiscard]] const std::vector<kernel_definition>& all_kernels();

/// The kernel called `name`; throws usage_error listing the valid names otherwise.
[[nodiscard]] const kernel_definition& find_kernel(std::string_view name);

}  // namespace kbench::suite

/// The build defines KBENCH_KERNEL_SOURCE_HASH for a kernel folder's sources (cmake/KbenchKernel.cmake).
#ifndef KBENCH_KERNEL_SOURCE_HASH
#define KBENCH_KERNEL_SOURCE_HASH ""
#endif

/// Defines and registers a kernel at static-initialization time; the body returns a kernel_builder.
#define KBENCH_KERNEL(ident)                                                                       \
  static ::kbench::suite::kernel_builder kbench_define_##ident();                                  \
  [[maybe_unused]] static const bool kbench_registered_##ident = ::kbench::suite::register_kernel( \
      std::move(kbench_define_##ident().source_hash(KBENCH_KERNEL_SOURCE_HASH)).build());          \
  static ::kbench::suite::kernel_builder kbench_define_##ident()

/// Extends a kernel registered with KBENCH_KERNEL (register_kernel_extension); the body returns a
/// kernel_builder of the kernel's name with what it adds.
#define KBENCH_KERNEL_EXTENSION(ident)                                                        \
  static ::kbench::suite::kernel_builder kbench_extend_##ident();                             \
  [[maybe_unused]] static const bool kbench_extended_##ident =                                \
      ::kbench::suite::register_kernel_extension(std::move(kbench_extend_##ident()).build()); \
  static ::kbench::suite::kernel_builder kbench_extend_##ident()
