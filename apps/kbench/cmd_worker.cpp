// `kbench worker`: one kernel x shape, run in a fresh process by `kbench run`; prints its result as one JSON
// line. With --serve, a tuning worker that runs the trials it reads from standard input, one at a time, and
// answers each with one line (runner/trial_server.hpp).

#include <kbench/backends/stream_kernels.hpp>
#include <kbench/suite/detail/config_trial.hpp>
#include <kbench/suite/detail/trial_server.hpp>
#include <kbench/suite/registry.hpp>
#include <kbench/suite/run_shape.hpp>

#include "commands.hpp"
#include "tolerance_option.hpp"

#include <fmt/format.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <thread>

namespace kbench::cli {

namespace {

/// KBENCH_INJECT_WORKER_FAULT="kernel:shape_index:segv|hang|abort" makes the matching worker fail for real,
/// to test that the runner survives a kernel that crashes or hangs (tests/cli). Unset in normal use.
void maybe_inject_fault(const worker_command& command) {
  const char* spec = std::getenv("KBENCH_INJECT_WORKER_FAULT");
  if (spec == nullptr) return;
  const std::string text(spec);
  const std::string prefix = fmt::format("{}:{}:", command.kernel, command.shape_index);
  if (text.rfind(prefix, 0) != 0) return;
  const std::string kind = text.substr(prefix.size());
  if (kind == "segv") {
    std::raise(SIGSEGV);
  } else if (kind == "abort") {
    std::abort();
  } else if (kind == "hang") {
    while (true) std::this_thread::sleep_for(std::chrono::seconds(1));
  }
}

}  // namespace

int worker(const worker_command& command) {
  runner::shape_options options;
  options.backend = parse_backend_kind(command.backend);
  options.seed = command.seed;
  options.atol = parse_tolerance("--atol", command.atol);
  options.rtol = parse_tolerance("--rtol", command.rtol);
  options.target_ms = command.target_ms;
  if (!command.impls.empty()) {
    options.run_kbench = options.run_torch = false;
    for (const auto& impl : command.impls) {
      if (impl == "kbench") {
        options.run_kbench = true;
      } else if (impl == "torch") {
        options.run_torch = true;
      } else {
        throw usage_error(fmt::format("unknown implementation '{}' (valid: kbench, torch)", impl));
      }
    }
  }
  const kernel_definition& kernel = find_kernel(command.kernel);
  if (command.serve) {
    runner::trial_context context(kernel, static_cast<std::size_t>(command.shape_index), options.backend,
                                  command.seed);
    std::string line;
    while (std::getline(std::cin, line)) {
      const auto request = runner::parse_request_line(line, options.backend, command.seed);
      const auto outcomes = runner::run_trial(context, request);
      fmt::print("\n{}{}\n", runner::trial_answer_prefix, nlohmann::json(outcomes).dump());
      std::fflush(stdout);
    }
    return 0;
  }
  if (!command.phase.empty()) {
    runner::trial_request request;
    request.backend = options.backend;
    request.seed = command.seed;
    request.phase = runner::parse_trial_phase(command.phase);
    request.target_ms = command.target_ms;
    request.incumbent_ms = command.incumbent_ms;
    request.retime_within = command.retime_within;
    request.give_up_above = command.give_up_above;
    request.time_limit_s = command.time_limit_s;
    for (const auto& text : command.configs) request.configs.push_back(parse_config_text(text));
    const auto outcomes = runner::run_trial(kernel, static_cast<std::size_t>(command.shape_index), request);
    fmt::print("\n{}\n", nlohmann::json(outcomes).dump());
    return 0;
  }
  if (command.configs.size() > 1) throw usage_error("a shape takes at most one --config");
  if (!command.configs.empty()) options.config = parse_config_text(command.configs.front());
  if (!command.triad_stores.empty()) {
    if (!is_store_kind(command.triad_stores)) {
      throw usage_error(fmt::format("unknown --triad-stores '{}' (valid: {}, {})", command.triad_stores,
                                    stores_normal, stores_non_temporal));
    }
    options.triad_stores = command.triad_stores;
  }
  options.triad_min_bytes = command.triad_min_bytes;
  maybe_inject_fault(command);
  const runner::shape_result result =
      runner::run_shape(kernel, static_cast<std::size_t>(command.shape_index), options);
  fmt::print("\n{}\n", nlohmann::json(result).dump());
  return 0;
}

}  // namespace kbench::cli
