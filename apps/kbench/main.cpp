// kbench: times compute kernels correctly on asynchronous devices.

#include <kbench/build_config.hpp>
#include <kbench/error.hpp>
#include <kbench/suite/worker_main.hpp>

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
  if (const auto status = kbench::suite::worker_main(argc, argv, &kbench::cli::load_spec_file_for_worker)) {
    return *status;
  }

  kbench::cli::program_argv() = argv;
  CLI::App app{"kbench: times compute kernels correctly on asynchronous devices"};
  app.set_version_flag("--version", KBENCH_VERSION);
  app.require_subcommand(0, 1);
  bool list_kernels_flag = false;
  app.add_flag("--list-kernels", list_kernels_flag, "List kernels, shapes and backends, then exit");

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
    if (list_kernels_flag) return kbench::cli::list_kernels();
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
