#pragma once
// Subcommands that register themselves, so that a new command is one new file in apps/kbench/.
//
// **Example** (apps/kbench/cmd_history.cpp):
//   static const kbench::cli::subcommand_registration history{
//       "history", "The results history", [](CLI::App& app) {
//         auto options = std::make_shared<history_options>();
//         app.add_option("--db", options->db, "Database URL");
//         return [options] { return run_history(*options); };  // the exit status
//       }};

#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <vector>

namespace kbench::cli {

/// Adds the subcommand's options to `app` and returns what runs it (returning the exit status).
using subcommand_setup = std::function<std::function<int()>(CLI::App& app)>;

struct subcommand_entry {
  std::string name;
  std::string description;
  subcommand_setup setup;
};

/// Every self-registered subcommand, in registration order.
inline std::vector<subcommand_entry>& registered_subcommands() {
  static std::vector<subcommand_entry> entries;
  return entries;
}

/// The command line kbench was started with (main sets it), for a subcommand that runs itself again.
inline char**& program_argv() {
  static char** argv = nullptr;
  return argv;
}

struct subcommand_registration {
  subcommand_registration(std::string name, std::string description, subcommand_setup setup) {
    registered_subcommands().push_back({std::move(name), std::move(description), std::move(setup)});
  }
};

}  // namespace kbench::cli
