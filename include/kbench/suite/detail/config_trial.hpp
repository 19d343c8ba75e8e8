#pragma once
// The autotuner's unit of work, run inside a `kbench worker` process (never in the tuning process: a config
// that crashes or hangs costs only its worker). Three phases:
//   compile  binds each config (builds the program; for OpenCL the driver's on-disk program cache then makes
//            the later timing worker's build a cache hit), no timing. Run in parallel, one per core.
//   time     binds one config, checks its output against the torch reference, then times it with the
//            synchronized wall latency (the median of compute_repeat calls filling target_ms). Given a
//            second config, the search's best so far (`incumbent`, timed at incumbent_ms), and a first
//            config that came within retime_within of it, builds and checks the incumbent (only then: a
//            far candidate costs no second build) and times the two again interleaved, so that the search
//            compares them under the same machine conditions.
//   retime   binds several configs that all passed, and times them interleaved (a, b, c, a, b, c, ...) so
//            that the final pick is not decided by drift in the machine.
// With a time limit (trial_request::time_limit_s, the parent's timeout for the trial), every timing first
// times one round of calls; if the full timing (about 9 such rounds) would not end within 3/4 of the limit,
// it times as many rounds as fit (at least 1, at most 5) and says so in the outcome's message, so that a
// config of seconds per call is recorded with its time instead of being killed as a timeout.

#include <kbench/device.hpp>
#include <kbench/host_tensor.hpp>
#include <kbench/suite/bound_kernel.hpp>
#include <kbench/suite/detail/trial_messages.hpp>
#include <kbench/suite/kernel.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

namespace kbench::suite {

/// What every trial of one kernel x shape x backend x seed shares: the device, the inputs and, made on first
/// use, the torch reference. A trial-serving `kbench worker` keeps one for all its trials.
class trial_context {
 public:
  /// Throws usage_error for a shape index out of range or a backend the kernel lacks.
  trial_context(const kernel_definition& kernel, std::size_t shape_index, backend_kind backend,
                std::uint64_t seed);
  [[nodiscard]] const kernel_definition& kernel() const { return m_kernel; }
  [[nodiscard]] const implementation& impl() const { return *m_impl; }
  [[nodiscard]] const shape& kernel_shape() const { return m_kernel.shapes[m_shape_index]; }
  [[nodiscard]] const device_ptr& device() const { return m_device; }
  [[nodiscard]] const std::vector<host_tensor>& inputs() const { return m_inputs; }
  [[nodiscard]] const std::vector<host_tensor>& expected();  // computed by torch on first call
  /// The inputs on the device, allocated and written on the first call of either. Every binding uses these
  /// buffers: allocating afresh for every config cost 0.43 s of page faults for add [4096,4096] on the cpu.
  [[nodiscard]] const std::vector<buffer_ptr>& device_inputs();
  /// The same, written again from inputs() if they were already there, so that a config that wrote into its
  /// inputs cannot spoil the next config's check or timing (a copy per config instead of an allocation).
  [[nodiscard]] const std::vector<buffer_ptr>& fresh_device_inputs();
  /// Output buffers on the device, one per reference output, allocated on the first call: every checked
  /// binding writes into these, so that configs timed against each other are timed on the same memory
  /// (kernel_args.cpp).
  [[nodiscard]] const std::vector<buffer_ptr>& device_outputs();

  /// A config this context already bound and checked, kept for the next trials (nullptr when not kept): the
  /// incumbent of a search comes back in every time trial whose candidate comes near it, and binding and
  /// checking it again each time cost as much as the candidate's own (0.09 s for add [4096,4096] on the cpu).
  [[nodiscard]] std::shared_ptr<bound_kernel> checked_binding(const config& values) const;
  /// Replaces the kept bindings (each bound and checked by this context).
  void keep_checked(std::vector<std::pair<config, std::shared_ptr<bound_kernel>>> bindings);

 private:
  const kernel_definition& m_kernel;
  std::size_t m_shape_index;
  const implementation* m_impl;
  device_ptr m_device;
  std::vector<host_tensor> m_inputs;
  std::optional<std::vector<host_tensor>> m_expected;
  std::vector<buffer_ptr> m_device_inputs;   // empty until device_inputs() first runs
  std::vector<buffer_ptr> m_device_outputs;  // empty until device_outputs() first runs
  std::vector<std::pair<config, std::shared_ptr<bound_kernel>>> m_checked;
};

/// Runs the request in this process; one outcome per config, in order. Failures of a config (build error,
/// exception, wrong result, broken sync) become its status; only a crash or a hang escapes, and the parent
/// sees those as the worker's death or timeout. The request's backend and seed must be the context's.
[[nodiscard]] std::vector<trial_outcome> run_trial(trial_context& context, const trial_request& request);

/// The same, with a context of its own.
[[nodiscard]] std::vector<trial_outcome> run_trial(const kernel_definition& kernel, std::size_t shape_index,
                                                   const trial_request& request);

}  // namespace kbench::suite
