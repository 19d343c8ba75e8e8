#pragma once
// The suite: which kernel x shape pairs to run, and running them one by one in worker processes.

#include <kbench/config.hpp>
#include <kbench/device.hpp>
#include <kbench/suite/baseline_setting.hpp>
#include <kbench/suite/kernel.hpp>
#include <kbench/suite/shape_result.hpp>
#include <kbench/suite/worker_request.hpp>
#include <kbench/timing_budget.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace kbench::suite {

struct suite_item {
  const kernel_definition* kernel = nullptr;
  std::size_t shape_index = 0;
};

struct suite_selection {
  std::vector<std::string> kernels;  // empty = all
  std::optional<int> num_shapes;     // the first N shapes of each kernel
  std::optional<int> shape_index;    // only shape I of each kernel
  std::optional<std::string> shape;  // only this shape (e.g. "[1024,256]") of each kernel that has it
};

/// The kernel x shape pairs selected, in kernel-name then shape order. Throws usage_error for an unknown
/// kernel, or a shape, shape index or count that no selected kernel has (the message lists the valid
/// choices).
[[nodiscard]] std::vector<suite_item> plan_suite(const suite_selection& selection);

/// What run_suite measures an item with: the kbench implementation's config, or a failure that skips it.
struct item_plan {
  std::optional<kbench::config> config;      // empty: the default config
  std::optional<baseline_setting> baseline;  // the torch baseline's setting; empty: libtorch's defaults
  std::optional<shape_status> failure;       // set: the item is not measured and gets this status
  std::string reason;                        // of the failure, or a note (warnings of the tuning)
  std::string config_source = "default";
  double tuning_s = 0;  // [s]
  std::size_t tuning_evaluations = 0;
};

struct suite_options {
  backend_kind backend = backend_kind::cpu;
  std::uint64_t seed = 0;
  std::optional<double> atol, rtol;
  bool run_kbench = true, run_torch = true;
  double target_ms = default_timing_budget.target_ms;  // [ms] budget each repeat count fills
  double timeout_per_shape_s =
      default_timing_budget
          .timeout_per_kernel_s;  // [s] a worker running longer is killed and the shape marked timeout
  std::optional<std::string> triad_stores;  // set: large shapes time a triad beside them (run_shape.hpp)
  double triad_min_bytes = 0;               // [bytes per call] "large"; 0: triad_probe_min_bytes()
  double require_quiet_s = 0;               // [s] shape_options::require_quiet_s
  /// Called before each item starts (index, count, item) and after it ends (with its result).
  std::function<void(std::size_t, std::size_t, const suite_item&)> on_start;
  std::function<void(std::size_t, std::size_t, const shape_result&)> on_done;
  /// Called before each item is measured (in this process, before its worker starts): tuning or the cache.
  std::function<item_plan(const suite_item&)> plan_item;
  /// Polled between items: true stops the run (Ctrl-C) after the current item.
  std::function<bool()> stop_requested;
};

/// Runs every item in a fresh `kbench worker` process (the executable running now). A worker that crashes,
/// hangs past the timeout or prints no result gives its item that status; the run goes on.
[[nodiscard]] std::vector<shape_result> run_suite(const std::vector<suite_item>& plan,
                                                  const suite_options& options);

/// The request of the `kbench worker` that measures one item (worker_request.hpp).
[[nodiscard]] worker_request shape_worker_request(const suite_item& item, const suite_options& options,
                                                  const std::optional<kbench::config>& config = {},
                                                  const std::optional<baseline_setting>& baseline = {});

}  // namespace kbench::suite
