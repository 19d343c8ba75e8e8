#include <kbench/backends/stream_kernels.hpp>
#include <kbench/error.hpp>
#include <kbench/suite/baseline_tuning.hpp>
#include <kbench/suite/detail/config_trial.hpp>
#include <kbench/suite/detail/trial_server.hpp>
#include <kbench/suite/detail/worker_process.hpp>
#include <kbench/suite/registry.hpp>
#include <kbench/suite/run_shape.hpp>
#include <kbench/suite/worker_main.hpp>
#include <kbench/suite/worker_request.hpp>
#include <kbench/timing_budget.hpp>

#include <fmt/format.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

namespace kbench::suite {

namespace {

/// KBENCH_INJECT_WORKER_FAULT="kernel:shape_index:segv|hang|abort" makes the matching worker fail for real,
/// to test that the runner survives a kernel that crashes or hangs (tests/cli). Unset in normal use.
void maybe_inject_fault(const worker_request& request) {
  const char* spec = std::getenv("KBENCH_INJECT_WORKER_FAULT");
  if (spec == nullptr) return;
  const std::string text(spec);
  const std::string prefix = fmt::format("{}:{}:", request.kernel, request.shape_index);
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

int run_worker(const worker_request& request) {
  const shape_options& options = request.shape;
  const kernel_definition& kernel = find_kernel(request.kernel);
  const std::size_t shape_index = request.shape_index;
  switch (request.task) {
    case worker_task::trials: {
      trial_context context(kernel, shape_index, options.backend, options.seed);
      std::string line;
      while (std::getline(std::cin, line)) {
        const auto trial = parse_request_line(line, options.backend, options.seed);
        const auto outcomes = run_trial(context, trial);
        fmt::print("\n{}{}\n", trial_answer_prefix, nlohmann::json(outcomes).dump());
        std::fflush(stdout);
      }
      return 0;
    }
    case worker_task::baseline_settings: {
      const auto candidates =
          time_baseline_thread_counts(kernel, shape_index, options.seed, options.target_ms);
      fmt::print("\n{}\n", nlohmann::json(candidates).dump());
      return 0;
    }
    case worker_task::trial: {
      const auto trial = parse_request_line(request.trial, options.backend, options.seed);
      fmt::print("\n{}\n", nlohmann::json(run_trial(kernel, shape_index, trial)).dump());
      return 0;
    }
    case worker_task::shape:
      break;
  }
  if (options.triad_stores && !is_store_kind(*options.triad_stores)) {
    throw usage_error(fmt::format("unknown triad_stores '{}' (valid: {}, {})", *options.triad_stores,
                                  stores_normal, stores_non_temporal));
  }
  maybe_inject_fault(request);
  const shape_result result = run_shape(kernel, shape_index, options);
  fmt::print("\n{}\n", nlohmann::json(result).dump());
  return 0;
}

}  // namespace

std::optional<int> worker_main(int argc, char** argv,
                               const std::function<void(const std::string&)>& load_definition_file) {
  if (argc < 2 || std::strcmp(argv[1], "worker") != 0) return std::nullopt;
  try {
    if (argc != 3) {
      throw usage_error(
          "`kbench worker` (internal: kbench starts it) takes one argument, its request as a JSON object "
          "(include/kbench/suite/worker_request.hpp)");
    }
    const worker_request request = parse_worker_request(argv[2]);
    if (!request.definition_file.empty()) {
      if (!load_definition_file)
        throw usage_error(fmt::format("this program cannot load spec file {}", request.definition_file));
      load_definition_file(request.definition_file);
    }
    watch_parent();
    return run_worker(request);
  } catch (const usage_error& e) {
    fmt::print(stderr, "kbench: {}\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    fmt::print(stderr, "kbench: error: {}\n", e.what());
    return 1;
  }
}

}  // namespace kbench::suite
