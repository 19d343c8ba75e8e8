#pragma once
// A kernel: shapes, deterministic inputs, the torch reference, a tolerance, and one implementation per
// backend. Kernels live in kernels/<name>/ and register themselves with KBENCH_KERNEL (registry.hpp).

#include <kbench/call_result.hpp>
#include <kbench/config.hpp>
#include <kbench/device.hpp>
#include <kbench/host_tensor.hpp>
#include <kbench/tune/space.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace kbench::suite {

/// Everything an implementation is bound to: the device, the problem shape, its config, and the inputs
/// already uploaded to the device (one buffer per input, in make_inputs order).
struct kernel_args {
  device_ptr device;
  kbench::shape shape;
  kbench::config config;
  std::vector<buffer_ptr> inputs;
  /// Buffers on `device` to write the outputs into, one per reference output in order; empty: the
  /// implementation allocates its own (output_buffer). The suite hands the kbench implementation and the
  /// torch baseline the same buffers where both run in host memory, and every config of a tuning worker the
  /// same ones, so that they are compared on the same memory (kernel_args.cpp says why).
  std::vector<buffer_ptr> outputs;
};

/// Output `index` of a binding with `args`: args.outputs[index] when the caller gave it (it must hold at
/// least `bytes`, or this throws), otherwise a new buffer of `bytes` on args.device.
[[nodiscard]] buffer_ptr output_buffer(const kernel_args& args, std::size_t index, std::size_t bytes);

/// Enqueues one call of a bound implementation and returns at once (synchronous backends return completed
/// events). Outputs are allocated (or taken from kernel_args::outputs) once when the implementation is bound
/// and returned in every call_result, in the order of the reference's outputs.
using launcher = std::function<call_result()>;

/// Binds an implementation: allocates outputs, builds programs for the config. Throws kbench::error on a
/// build failure (with the build log) or a config that does not fit the shape or device.
using implementation_factory = std::function<launcher(const kernel_args&)>;

/// The tuning space of an implementation for one shape (the space may depend on the shape, e.g. a block
/// size no larger than a row). Its default config should be the implementation's default_config.
using tuning_space_factory = std::function<tune::space(const shape&)>;

struct implementation {
  backend_kind backend = backend_kind::cpu;
  implementation_factory bind;
  kbench::config default_config;
  std::string baseline_form;  // torch only: how the baseline calls torch, e.g. "at::exp_out (preallocated)"
  tuning_space_factory tuning_space;  // empty: nothing to tune, the default config is used
};

/// When a result matches the reference: |got - want| <= atol + rtol * |want| for all but a fraction of
/// elements.
struct tolerance {
  double atol = 1e-5;
  double rtol = 1e-5;
  double max_mismatch_fraction = 0;  // [fraction of elements]
};

struct kernel_definition {
  std::string name;
  std::string description;
  std::vector<kbench::shape> shapes;  // in increasing size; the suite times them all
  std::function<std::vector<host_tensor>(const kbench::shape&, std::uint64_t seed)> make_inputs;
  std::function<std::vector<host_tensor>(const std::vector<host_tensor>& inputs)> reference;
  kbench::suite::tolerance tolerance;
  std::function<double(const kbench::shape&)> bytes_moved;  // [bytes per call], for bandwidth; may be empty
  /// [floating-point operations per call] the kernel's useful arithmetic (a matmul's 2 M N K), for GFLOP/s;
  /// may be empty. A shape doing at least suite::compute_bound_flops_per_byte per byte moved is judged by
  /// its GFLOP/s instead of its share of the memory bandwidth (suite::shape_result::compute_bound).
  std::function<double(const kbench::shape&)> flops;
  std::vector<implementation> implementations;
  /// SHA-256 of the files of the kernel's folder and of kernels/common, which kernels include (set by the
  /// build, kbench_add_kernel), so that a tuning-cache entry is not reused after the kernel's code or a
  /// shared helper changed. Empty when the build did not set it.
  std::string source_hash;
  /// The reference where it needs the shape (a spec kernel's expected outputs per shape); used instead of
  /// `reference` when set.
  std::function<std::vector<host_tensor>(const kbench::shape&, const std::vector<host_tensor>& inputs)>
      shaped_reference;
  /// What the reference is, for messages ("torch" when empty and `reference` is set).
  std::string reference_label;
  /// The spec file that defines the kernel (spec/spec_kernel.hpp), which its worker processes load; empty
  /// for a built-in kernel.
  std::string definition_file;
  /// [bytes] A guard region past the end of every output: bindings allocate it (output_buffer's bytes plus
  /// this), the accuracy check fills it with 0xFF and fails the call with a runtime error when the kernel
  /// changed any of it (an out-of-bounds write). 0: none (the built-in kernels, checked by their tests).
  std::size_t output_guard_bytes = 0;

  /// The implementation for `backend`, or nullptr when the kernel has none.
  [[nodiscard]] const implementation* find(backend_kind backend) const;
};

}  // namespace kbench::suite

namespace kbench::kernels {
// The built-in kernels (kernels/*/) are written against this API and name it without the prefix.
using namespace kbench::suite;
}  // namespace kbench::kernels
