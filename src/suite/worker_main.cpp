#include <kbench/backends/stream_kernels.hpp>
#include <kbench/error.hpp>
#include <kbench/suite/baseline_tuning.hpp>
#include <kbench/suite/detail/config_trial.hpp>
#include <kbench/suite/detail/trial_server.hpp>
#include <kbench/suite/detail/worker_process.hpp>
#include <kbench/suite/registry.hpp>
#include <kbench/suite/run_shape.hpp>
#include <kbench/suite/worker_main.hpp>
#include <kbench/timing_budget.hpp>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

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

/// What the parent passes (suite.cpp, tune_shape.cpp).
struct worker_arguments {
  std::string kernel;
  std::vector<std::string> definition_files;  // --spec: files that define the kernel
  int shape_index = 0;
  std::string backend = "cpu";
  std::uint64_t seed = 0;
  std::string atol, rtol;  // empty: the kernel's tolerance
  std::vector<std::string> impls;
  double target_ms = default_timing_budget.target_ms;
  std::string phase;         // compile|time|retime: a tuning trial (config_trial.hpp); baseline-settings: the
                             // torch baseline's thread counts (baseline_tuning.hpp); empty: a shape
  std::string torch_config;  // a shape: the torch baseline's config (baseline_setting::binding_config)
  std::vector<std::string> configs;  // JSON objects; a shape takes at most one
  double incumbent_ms = 0;           // [ms] time trial: the second config's (the incumbent's) best time
  double retime_within =
      default_timing_budget.retime_within;  // [ratio] time trial: re-time against the incumbent within this
  double give_up_above =
      default_timing_budget
          .give_up_above;   // [ratio] time trial: first calls only, when all are this far behind
  double time_limit_s = 0;  // [s] how long the caller waits; 0: no limit (trial_request)
  bool serve = false;  // serve tuning trials read from standard input, one JSON line each (config_trial.hpp)
  std::string triad_stores;    // a shape: time a triad beside it when large (run_shape.hpp); empty: none
  double triad_min_bytes = 0;  // [bytes per call] "large" for the triad; 0: triad_probe_min_bytes()
  double require_quiet_s = 0;  // [s] a shape: shape_options::require_quiet_s
};

/// A tolerance the parent has already checked; empty: none.
std::optional<double> tolerance_of(const std::string& option, const std::string& text) {
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || !(value >= 0)) {
    throw usage_error(fmt::format("{} must be a non-negative number, got '{}'", option, text));
  }
  return value;
}

/// KBENCH_INJECT_WORKER_FAULT="kernel:shape_index:segv|hang|abort" makes the matching worker fail for real,
/// to test that the runner survives a kernel that crashes or hangs (tests/cli). Unset in normal use.
void maybe_inject_fault(const worker_arguments& args) {
  const char* spec = std::getenv("KBENCH_INJECT_WORKER_FAULT");
  if (spec == nullptr) return;
  const std::string text(spec);
  const std::string prefix = fmt::format("{}:{}:", args.kernel, args.shape_index);
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

int run_worker(const worker_arguments& args) {
  shape_options options;
  options.backend = parse_backend_kind(args.backend);
  options.seed = args.seed;
  options.atol = tolerance_of("--atol", args.atol);
  options.rtol = tolerance_of("--rtol", args.rtol);
  options.target_ms = args.target_ms;
  options.require_quiet_s = args.require_quiet_s;
  if (!args.impls.empty()) {
    options.run_kbench = options.run_torch = false;
    for (const auto& impl : args.impls) {
      if (impl == "kbench") {
        options.run_kbench = true;
      } else if (impl == "torch") {
        options.run_torch = true;
      } else {
        throw usage_error(fmt::format("unknown implementation '{}' (valid: kbench, torch)", impl));
      }
    }
  }
  const kernel_definition& kernel = find_kernel(args.kernel);
  const auto shape_index = static_cast<std::size_t>(args.shape_index);
  if (args.serve) {
    trial_context context(kernel, shape_index, options.backend, args.seed);
    std::string line;
    while (std::getline(std::cin, line)) {
      const auto request = parse_request_line(line, options.backend, args.seed);
      const auto outcomes = run_trial(context, request);
      fmt::print("\n{}{}\n", trial_answer_prefix, nlohmann::json(outcomes).dump());
      std::fflush(stdout);
    }
    return 0;
  }
  if (args.phase == "baseline-settings") {
    const auto candidates = time_baseline_thread_counts(kernel, shape_index, args.seed, args.target_ms);
    fmt::print("\n{}\n", nlohmann::json(candidates).dump());
    return 0;
  }
  if (!args.phase.empty()) {
    trial_request request;
    request.backend = options.backend;
    request.seed = args.seed;
    request.phase = parse_trial_phase(args.phase);
    request.target_ms = args.target_ms;
    request.incumbent_ms = args.incumbent_ms;
    request.retime_within = args.retime_within;
    request.give_up_above = args.give_up_above;
    request.time_limit_s = args.time_limit_s;
    for (const auto& text : args.configs) request.configs.push_back(parse_config_text(text));
    const auto outcomes = run_trial(kernel, shape_index, request);
    fmt::print("\n{}\n", nlohmann::json(outcomes).dump());
    return 0;
  }
  if (args.configs.size() > 1) throw usage_error("a shape takes at most one --config");
  if (!args.configs.empty()) options.config = parse_config_text(args.configs.front());
  if (!args.torch_config.empty()) options.torch_config = parse_config_text(args.torch_config);
  if (!args.triad_stores.empty()) {
    if (!is_store_kind(args.triad_stores)) {
      throw usage_error(fmt::format("unknown --triad-stores '{}' (valid: {}, {})", args.triad_stores,
                                    stores_normal, stores_non_temporal));
    }
    options.triad_stores = args.triad_stores;
  }
  options.triad_min_bytes = args.triad_min_bytes;
  maybe_inject_fault(args);
  const shape_result result = run_shape(kernel, shape_index, options);
  fmt::print("\n{}\n", nlohmann::json(result).dump());
  return 0;
}

}  // namespace

std::optional<int> worker_main(int argc, char** argv,
                               const std::function<void(const std::string&)>& load_definition_file) {
  if (argc < 2 || std::strcmp(argv[1], "worker") != 0) return std::nullopt;
  worker_arguments args;
  CLI::App app("One kernel x shape, or tuning trials, for `kbench run` and `kbench tune` (internal)");
  app.name(fmt::format("{} worker", argv[0]));
  app.add_option("--kernel", args.kernel)->required();
  app.add_option("--spec", args.definition_files, "A spec file that defines the kernel");
  app.add_option("--shape-index", args.shape_index)->required();
  app.add_option("--backend", args.backend);
  app.add_option("--seed", args.seed);
  app.add_option("--atol", args.atol);
  app.add_option("--rtol", args.rtol);
  app.add_option("--impl", args.impls)->delimiter(',');
  app.add_option("--target-ms", args.target_ms);
  app.add_option("--require-quiet", args.require_quiet_s);
  app.add_option("--phase", args.phase);
  app.add_option("--config", args.configs);
  app.add_option("--torch-config", args.torch_config);
  app.add_option("--incumbent-ms", args.incumbent_ms);
  app.add_option("--retime-within", args.retime_within);
  app.add_option("--give-up-above", args.give_up_above);
  app.add_option("--time-limit", args.time_limit_s,
                 "Seconds the caller waits; long calls are timed fewer times");
  app.add_flag("--serve", args.serve);
  app.add_option("--triad-stores", args.triad_stores, "A large shape also times a triad with these stores");
  app.add_option("--triad-min-bytes", args.triad_min_bytes, "Bytes per call from which a shape is large");
  try {
    app.parse(argc - 1, argv + 1);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return e.get_exit_code() == 0 ? 0 : 2;
  }
  try {
    for (const auto& file : args.definition_files) {
      if (!load_definition_file)
        throw usage_error(fmt::format("this program cannot load spec file {}", file));
      load_definition_file(file);
    }
    watch_parent();
    return run_worker(args);
  } catch (const usage_error& e) {
    fmt::print(stderr, "kbench: {}\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    fmt::print(stderr, "kbench: error: {}\n", e.what());
    return 1;
  }
}

}  // namespace kbench::suite
