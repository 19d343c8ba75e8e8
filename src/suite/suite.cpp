#include <kbench/error.hpp>
#include <kbench/host_tensor.hpp>
#include <kbench/suite/detail/worker_process.hpp>
#include <kbench/suite/registry.hpp>
#include <kbench/suite/suite.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <csignal>
#include <cstring>

namespace kbench::suite {

namespace {

/// The kernels of `kernels` that have shape `wanted`, at that shape; none: usage_error listing their shapes.
std::vector<suite_item> plan_one_shape(const std::vector<const kernel_definition*>& kernels,
                                       const shape& wanted) {
  std::vector<suite_item> plan;
  std::vector<std::string> valid;
  for (const kernel_definition* k : kernels) {
    std::vector<std::string> shapes;
    for (std::size_t i = 0; i < k->shapes.size(); ++i) {
      if (k->shapes[i] == wanted) plan.push_back({k, i});
      shapes.push_back(kbench::to_string(k->shapes[i]));
    }
    valid.push_back(fmt::format("{}: {}", k->name, fmt::join(shapes, " ")));
  }
  if (plan.empty()) {
    throw usage_error(fmt::format("no selected kernel has shape {} (valid: {})", kbench::to_string(wanted),
                                  fmt::join(valid, "; ")));
  }
  return plan;
}

}  // namespace

std::vector<suite_item> plan_suite(const suite_selection& selection) {
  std::vector<const kernel_definition*> kernels;
  if (selection.kernels.empty()) {
    for (const auto& k : all_kernels()) kernels.push_back(&k);
  } else {
    for (const auto& name : selection.kernels) {
      const kernel_definition* k = &find_kernel(name);  // usage_error with the valid names
      if (std::find(kernels.begin(), kernels.end(), k) == kernels.end()) kernels.push_back(k);
    }
  }
  if (selection.num_shapes && *selection.num_shapes <= 0) {
    throw usage_error(fmt::format("--num-shapes must be at least 1, got {}", *selection.num_shapes));
  }
  if (selection.shape) return plan_one_shape(kernels, parse_shape(*selection.shape));
  std::vector<suite_item> plan;
  std::size_t max_shapes = 0;
  for (const kernel_definition* k : kernels) {
    max_shapes = std::max(max_shapes, k->shapes.size());
    std::size_t first = 0, last = k->shapes.size();
    if (selection.shape_index) {
      if (*selection.shape_index < 0) {
        throw usage_error(fmt::format("shape index {} is negative", *selection.shape_index));
      }
      first = static_cast<std::size_t>(*selection.shape_index);
      last = std::min(last, first + 1);
    }
    if (selection.num_shapes) last = std::min(last, static_cast<std::size_t>(*selection.num_shapes));
    for (std::size_t i = first; i < last; ++i) plan.push_back({k, i});
  }
  if (selection.shape_index && plan.empty()) {
    throw usage_error(fmt::format("shape index {} out of range (valid: 0..{} for the selected kernels)",
                                  *selection.shape_index, max_shapes == 0 ? 0 : max_shapes - 1));
  }
  return plan;
}

worker_request shape_worker_request(const suite_item& item, const suite_options& options,
                                    const std::optional<kbench::config>& config,
                                    const std::optional<baseline_setting>& baseline) {
  worker_request request = make_worker_request(worker_task::shape, *item.kernel, item.shape_index);
  shape_options& s = request.shape;
  s.backend = options.backend;
  s.seed = options.seed;
  s.target_ms = options.target_ms;
  s.atol = options.atol;
  s.rtol = options.rtol;
  s.run_kbench = options.run_kbench;
  s.run_torch = options.run_torch;
  s.config = config;
  if (baseline && baseline->threads > 0 && options.run_torch) s.torch_config = baseline->binding_config();
  s.triad_stores = options.triad_stores;
  if (options.triad_stores) s.triad_min_bytes = options.triad_min_bytes;
  s.require_quiet_s = options.require_quiet_s;
  return request;
}

namespace {

/// The last lines of a worker's stderr, for the reason of a failed item.
std::string tail_of(const std::string& text, std::size_t max_chars = 600) {
  std::string t = text;
  while (!t.empty() && (t.back() == '\n' || t.back() == ' ')) t.pop_back();
  if (t.size() > max_chars) t = "..." + t.substr(t.size() - max_chars);
  return t;
}

shape_result failed_item(const suite_item& item, shape_status status, std::string reason, double elapsed_s) {
  shape_result r;
  r.kernel = item.kernel->name;
  r.shape_index = item.shape_index;
  const shape& s = item.kernel->shapes.at(item.shape_index);
  r.shape = kbench::to_string(s);
  r.status = status;
  r.reason = std::move(reason);
  r.elapsed_s = elapsed_s;
  if (item.kernel->bytes_moved) r.bytes_moved = item.kernel->bytes_moved(s);
  if (item.kernel->flops) r.flops = item.kernel->flops(s);
  return r;
}

shape_result collect(const suite_item& item, const worker_outcome& outcome, double timeout_s) {
  if (outcome.timed_out) {
    return failed_item(item, shape_status::timeout,
                       fmt::format("no result within {:g} s (--timeout-per-kernel)", timeout_s),
                       outcome.elapsed_s);
  }
  if (outcome.signal != 0) {
    return failed_item(
        item, shape_status::crashed,
        fmt::format("the worker was killed by signal {} ({}){}{}", outcome.signal, strsignal(outcome.signal),
                    outcome.err.empty() ? "" : ": ", tail_of(outcome.err)),
        outcome.elapsed_s);
  }
  const nlohmann::json doc = answer_of(outcome);
  if (doc.is_discarded() || !doc.is_object()) {
    return failed_item(item, shape_status::runtime_error,
                       fmt::format("the worker exited with status {} and no result: {}", outcome.exit_code,
                                   tail_of(outcome.err.empty() ? outcome.out : outcome.err)),
                       outcome.elapsed_s);
  }
  try {
    return doc.get<shape_result>();
  } catch (const std::exception& e) {
    return failed_item(item, shape_status::runtime_error,
                       fmt::format("unreadable worker result: {}", e.what()), outcome.elapsed_s);
  }
}

}  // namespace

std::vector<shape_result> run_suite(const std::vector<suite_item>& plan, const suite_options& options) {
  const std::string exe = self_executable();
  std::vector<shape_result> results;
  for (std::size_t i = 0; i < plan.size(); ++i) {
    if (options.stop_requested && options.stop_requested()) break;
    if (options.on_start) options.on_start(i, plan.size(), plan[i]);
    item_plan chosen;
    if (options.plan_item) {
      try {
        chosen = options.plan_item(plan[i]);
      } catch (const std::exception& e) {
        chosen.failure = shape_status::runtime_error;
        chosen.reason = fmt::format("choosing the config failed: {}", e.what());
      }
    }
    shape_result result;
    if (chosen.failure) {
      result = failed_item(plan[i], *chosen.failure, chosen.reason, 0);
    } else {
      const std::vector<std::string> argv{
          exe, "worker", to_message(shape_worker_request(plan[i], options, chosen.config, chosen.baseline))};
      // The baseline's spin count reaches libgomp only through the environment the worker starts with.
      std::vector<std::string> environment;
      if (chosen.baseline && chosen.baseline->threads > 0)
        environment.push_back(chosen.baseline->environment());
      const worker_outcome outcome = run_worker(argv, options.timeout_per_shape_s, environment);
      if (outcome.aborted) break;  // stopped at once: this shape was not measured, the ones before stand
      result = collect(plan[i], outcome, options.timeout_per_shape_s);
    }
    if (workers_aborted()) break;  // its config or baseline choice was cut short: not a result
    result.config_source = chosen.config_source;
    result.tuning_s = chosen.tuning_s;
    result.tuning_evaluations = chosen.tuning_evaluations;
    if (options.run_torch) result.baseline = chosen.baseline;
    results.push_back(std::move(result));
    if (options.on_done) options.on_done(i, plan.size(), results.back());
  }
  return results;
}

}  // namespace kbench::suite
