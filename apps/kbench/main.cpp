// kbench: times compute kernels correctly on asynchronous devices.

#include <kbench/build_config.hpp>
#include <kbench/error.hpp>
#include <kbench/suite/worker_main.hpp>
#include <kbench/suite/workers.hpp>

#include "commands.hpp"
#include "numeric_option.hpp"
#include "spec_files.hpp"
#include "subcommand.hpp"

#include <fmt/core.h>
#include <CLI/CLI.hpp>

#include <cstdio>
#include <limits>

int main(int argc, char** argv) {
  // A process that `kbench run` or tuning started (argv[1] "worker"): it runs what it was asked, nothing
  // else.
  if (const auto status = kbench::runner::worker_main(argc, argv, &kbench::cli::load_spec_file_for_worker)) {
    return *status;
  }

  CLI::App app{"kbench: times compute kernels correctly on asynchronous devices"};
  app.set_version_flag("--version", KBENCH_VERSION);
  app.require_subcommand(0, 1);
  bool list_kernels_flag = false;
  app.add_flag("--list-kernels", list_kernels_flag, "List kernels, shapes and backends, then exit");

  auto* list = app.add_subcommand("list", "Kernels, their shapes and backends");
  auto* devices = app.add_subcommand("devices", "Backends and devices found on this machine");

  kbench::cli::measure_command m;
  auto* measure =
      app.add_subcommand("measure", "The three-measure table for every implementation of one kernel/shape");
  measure->add_option("--kernel,--op", m.kernel, "Kernel name (see `kbench list`)");
  measure->add_option("--spec", m.specs,
                      "A kernel described in a file (docs/specs.md); --kernel may be left out");
  auto* shape_opt = measure->add_option("--shape", m.shape, "Shape, e.g. 104857600 or [1024,256]");
  measure->add_option("--shape-index", m.shape_index, "Index into the kernel's shapes")
      ->check(CLI::Range(0, std::numeric_limits<int>::max()))
      ->excludes(shape_opt);
  measure
      ->add_option("--backend", m.backends,
                   "Backends to run, comma-separated: auto, cpu, opencl, cuda, torch (default: every one the "
                   "kernel has)")
      ->delimiter(',');
  measure->add_option("--seed", m.seed, "Seed of the deterministic inputs")
      ->capture_default_str()
      ->check(kbench::cli::any_seed());
  measure->add_option("--repeat", m.timing.repeat, "Wall-latency samples (0: fill --target-ms)")
      ->capture_default_str()
      ->check(kbench::cli::count_in(0, 1e6));
  measure->add_option("--target-ms", m.timing.target_ms, "Time budget the repeat count fills [ms]")
      ->capture_default_str()
      ->check(kbench::cli::number_in(0.001, 600000));
  measure->add_option("--warmup", m.timing.warmup, "Warm-up calls, each synced")
      ->capture_default_str()
      ->check(kbench::cli::count_in(0, 1e6));
  measure
      ->add_option("--throughput-calls", m.timing.throughput_calls,
                   "Calls per throughput batch (0: = repeat)")
      ->capture_default_str()
      ->check(kbench::cli::count_in(0, 1e6));
  measure->add_flag(
      "--flush-cache", m.timing.flush_cache,
      "Flush the device's caches before every wall-latency sample (cpu: every core's and the last "
      "level; a GPU: its L2)");
  measure
      ->add_option("--inject-sync-fault", m.fault,
                   "Make result waits, the barrier or both no-ops: none|result|barrier|both")
      ->capture_default_str();
  measure->add_option("--json", m.json_path, "Append v3 records to this JSON file");
  measure->add_option("--config", m.config,
                      "Config for every implementation but torch, as JSON, e.g. '{\"GRAIN\":4096}'");

  kbench::cli::run_command r;
  auto* run =
      app.add_subcommand("run",
                         "The suite: check every kernel x shape against torch and time it against the "
                         "torch baseline; summary table and v3 JSON");
  run->add_option("--kernel,--kernels,--op", r.kernels, "Kernels to run, comma-separated (default: all)")
      ->delimiter(',');
  run->add_option(
         "--spec", r.specs,
         "Kernels described in files (docs/specs.md), comma-separated: run these (and the --kernel ones, "
         "or with --builtin every built-in kernel)")
      ->delimiter(',');
  run->add_flag("--builtin", r.builtin, "With --spec: run the built-in kernels too");
  run->add_option("--backend", r.backend, "auto, cpu, opencl or cuda")->capture_default_str();
  run->add_option("--impl", r.impls, "Implementations to time: kbench, torch (default: both)")
      ->delimiter(',');
  auto* num_shapes_opt =
      run->add_option("--num-shapes", r.num_shapes, "Only the first N shapes of each kernel")
          ->check(kbench::cli::count_in(1, 1e6));
  auto* run_shape_opt =
      run->add_option("--shape", r.shape, "Only this shape of each kernel that has it, e.g. [1024,256]")
          ->excludes(num_shapes_opt);
  run->add_option("--shape-index", r.shape_index, "Only shape I of each kernel")
      ->check(CLI::Range(0, std::numeric_limits<int>::max()))
      ->excludes(run_shape_opt);
  run->add_option("--seed", r.seed, "Seed of the deterministic inputs")
      ->capture_default_str()
      ->check(kbench::cli::any_seed());
  run->add_option("--atol", r.atol, "Absolute tolerance (default: each kernel's)");
  run->add_option(
         "--require-quiet", r.require_quiet_s,
         "Wait up to S seconds per shape for a quiet machine, and fail a shape timed while it was busy "
         "(for CI); 0: time anyway and mark it")
      ->capture_default_str()
      ->check(kbench::cli::number_in(0, 3600));
  run->add_option(
         "--min-effect", r.min_effect,
         "Smallest speedup called faster or slower, as a fraction (0.02: kbench 2% apart from torch)")
      ->capture_default_str()
      ->check(kbench::cli::number_in(0, 1));
  run->add_option("--rtol", r.rtol, "Relative tolerance (default: each kernel's)");
  run->add_option("--effort", r.effort,
                  "Tuning on a cache miss: none (default config), quick (<= 50 configs or 120 s per shape), "
                  "full (<= 200 configs or 900 s)")
      ->capture_default_str();
  kbench::cli::add_tuning_flags(*run, r.tuning);
  run->add_option("--output", r.output, "Append v3 records to this JSON file");
  run->add_option("--db", r.db,
                  "Also store the records in this history database (postgresql://..., sqlite:///path)");
  run->add_option("--commit", r.commit,
                  "Commit recorded with the results in the history (default: $GITHUB_SHA)");
  run->add_option("--timeout-per-kernel", r.timeout_per_kernel_s, "Seconds one kernel x shape may take")
      ->capture_default_str()
      ->check(kbench::cli::number_in(0.001, 1e7));
  run->add_option("--target-ms", r.target_ms, "Time budget each repeat count fills [ms]")
      ->capture_default_str()
      ->check(kbench::cli::number_in(0.001, 600000));
  run->add_option(
         "--triad-min-mib", r.triad_min_mib,
         "Shapes moving at least this many MiB per call also time a STREAM triad in their turns, for "
         "the % triad column (default: twice the last-level cache, counted at most 32 MiB per cpu "
         "sharing it, and at least 64)")
      ->check(kbench::cli::number_in(0, 1e9));
  run->add_option("--shard", r.shard,
                  "Run only shard i of N (1-based, e.g. 2/4): every N-th kernel x shape of the plan")
      ->capture_default_str();
  run->add_flag("--list", r.list, "Print the planned kernel x shape items (after --shard), then exit");
  bool run_list = false;
  run->add_flag("--list-kernels", run_list, "List kernels, shapes and backends, then exit");

  kbench::cli::calibrate_command c;
  auto* calibrate =
      app.add_subcommand("calibrate", "Peak memory bandwidth of a device (STREAM copy and triad), cached");
  calibrate->add_option("--backend", c.backend, "auto, all, cpu, opencl or cuda")->capture_default_str();
  calibrate->add_option("--elements", c.elements, "Floats per array")
      ->capture_default_str()
      ->check(kbench::cli::count_in(1024, 1e11));

  std::vector<std::pair<CLI::App*, std::function<int()>>> registered;
  for (const auto& entry : kbench::cli::registered_subcommands()) {
    CLI::App* sub = app.add_subcommand(entry.name, entry.description);
    registered.emplace_back(sub, entry.setup(*sub));
  }

  // No subcommand, or one kbench does not have: the list of those it has, exit 2 (a typo in a CI script
  // must fail it).
  const bool unknown_subcommand = argc >= 2 && argv[1][0] != '-' && [&] {
    for (const auto* sub : app.get_subcommands({})) {
      if (sub->check_name(argv[1])) return false;
    }
    return true;
  }();
  if (argc < 2 || unknown_subcommand) {
    if (unknown_subcommand) fmt::print(stderr, "kbench: unknown subcommand \"{}\"\n", argv[1]);
    fmt::print(
        stderr,
        "Usage: kbench SUBCOMMAND [OPTIONS] (kbench SUBCOMMAND --help for its options)\n\nSubcommands:\n");
    for (const auto* sub : app.get_subcommands({})) {
      fmt::print(stderr, "  {:<12} {}\n", sub->get_name(), sub->get_description());
    }
    return 2;
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);  // prints the message and the usage hint
    return 2;
  }

  try {
    if (list_kernels_flag || *list) return kbench::cli::list_kernels();
    if (*devices) return kbench::cli::list_devices();
    if (*measure) {
      kbench::runner::exec_self_with_worker_environment(argv);  // torch is timed in this process
      return kbench::cli::measure(m);
    }
    if (*run) return run_list ? kbench::cli::list_kernels() : kbench::cli::run(r);
    if (*calibrate) return kbench::cli::calibrate(c);
    for (const auto& [sub, run_it] : registered) {
      if (*sub) return run_it();
    }
    fmt::print("{}", app.help());
    return 0;
  } catch (const kbench::usage_error& e) {
    fmt::print(stderr, "kbench: {}\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    fmt::print(stderr, "kbench: error: {}\n", e.what());
    return 1;
  }
}
