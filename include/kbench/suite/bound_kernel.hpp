#pragma once
// One implementation of a kernel bound to a device, a shape and a config, with its inputs on the device:
// what the measurement core times and the accuracy check reads back.

#include <kbench/bench_target.hpp>
#include <kbench/suite/kernel.hpp>

#include <vector>

namespace kbench::suite {

/// Allocates one buffer per input on `device` and writes the input into it.
[[nodiscard]] std::vector<buffer_ptr> upload_inputs(device& target, const std::vector<host_tensor>& inputs);
/// Writes input i into buffers[i] again (buffers from upload_inputs of the same inputs), so that whatever a
/// kernel wrote into its inputs is gone before the next one is checked or timed.
void rewrite_inputs(const std::vector<buffer_ptr>& buffers, const std::vector<host_tensor>& inputs);
/// Allocates one buffer per tensor on `device`, of the tensor's size plus `guard_bytes`
/// (kernel_definition::output_guard_bytes; contents undefined): outputs to hand to bindings
/// (kernel_args::outputs).
[[nodiscard]] std::vector<buffer_ptr> allocate_outputs(device& target, const std::vector<host_tensor>& like,
                                                       std::size_t guard_bytes = 0);

class bound_kernel {
 public:
  /// Uploads `inputs` to `device` and binds `impl` with `cfg` (empty: the implementation's default config).
  /// Throws kbench::error when the implementation cannot be built for this shape, config or device.
  bound_kernel(const kernel_definition& kernel, const implementation& impl, device_ptr device, const shape& s,
               const std::vector<host_tensor>& inputs, config cfg = {});
  /// The same with inputs already on `device` (upload_inputs), which the bound kernel shares with the caller,
  /// and optionally the buffers on `device` to write its outputs into (kernel_args::outputs; empty: its own).
  bound_kernel(const kernel_definition& kernel, const implementation& impl, device_ptr device, const shape& s,
               std::vector<buffer_ptr> device_inputs, config cfg = {},
               std::vector<buffer_ptr> device_outputs = {});

  /// The target for bench/measure: call = one launch, barrier = the device's barrier.
  [[nodiscard]] bench_target target() const;
  /// Runs a call, fills its output buffers with NaN, runs a second call, waits for it (verified), and reads
  /// every output back to the host with the reference's shapes: an output element the kernel does not write
  /// reads back as NaN, whatever the buffer held before. Throws kbench::error when the kernel wrote into an
  /// output's guard region (kernel_definition::output_guard_bytes).
  [[nodiscard]] std::vector<host_tensor> run_and_read(
      const std::vector<host_tensor>& reference_outputs) const;
  /// The same where no reference gives the shapes: every output whole (less its guard region), as a flat
  /// tensor.
  [[nodiscard]] std::vector<host_tensor> run_and_read() const;

  [[nodiscard]] const config& used_config() const { return m_config; }
  [[nodiscard]] const device_ptr& device() const { return m_device; }
  [[nodiscard]] backend_kind backend() const { return m_backend; }

 private:
  /// The two calls of run_and_read (it says why two); returns the second call's result, finished.
  [[nodiscard]] call_result run_twice_for_reading() const;
  /// Output `index` of `result` as a tensor of `output_shape` (its first values), after checking its guard
  /// region.
  [[nodiscard]] host_tensor read_output(const call_result& result, std::size_t index,
                                        shape output_shape) const;

  std::string m_name;
  backend_kind m_backend;
  device_ptr m_device;
  config m_config;
  std::vector<buffer_ptr> m_inputs;
  std::size_t m_guard_bytes;
  launcher m_launch;
};

}  // namespace kbench::suite
