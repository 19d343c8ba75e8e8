// `kbench run`: the suite. A front-end of the suite's engine (suite/suite_run.hpp): it parses the flags, lets
// the engine run and judge every kernel x shape in its worker, prints what the engine says, and writes the
// records to --output and --db.

#include <kbench/error.hpp>
#include <kbench/history/records.hpp>
#include <kbench/history/store.hpp>
#include <kbench/io/json_v3.hpp>
#include <kbench/suite/registry.hpp>
#include <kbench/suite/shard.hpp>
#include <kbench/suite/suite_run.hpp>

#include "commands.hpp"
#include "save_records.hpp"
#include "spec_files.hpp"
#include "tolerance_option.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <memory>

namespace kbench::cli {

namespace {

/// The kernels and shapes asked for: --kernel, the kernels of --spec files (with --builtin, the built-in
/// ones too), --num-shapes, --shape-index, --shape.
runner::suite_selection selection_of(const run_command& command) {
  runner::suite_selection selection;
  selection.kernels = command.kernels;
  const std::vector<std::string> spec_kernels = load_spec_files(command.specs);
  if (!spec_kernels.empty() && selection.kernels.empty()) {
    selection.kernels = spec_kernels;
    if (command.builtin) {
      for (const auto& k : all_kernels()) {
        if (k.definition_file.empty()) selection.kernels.push_back(k.name);
      }
    }
  } else if (command.builtin) {
    throw usage_error("--builtin goes with --spec and without --kernel");
  }
  if (command.num_shapes != -1) selection.num_shapes = command.num_shapes;
  if (command.shape_index >= 0) selection.shape_index = command.shape_index;
  if (!command.shape.empty()) selection.shape = command.shape;
  return selection;
}

runner::suite_run_request request_of(const run_command& command) {
  runner::suite_run_request request;
  request.backend = command.backend;
  request.impls = command.impls;
  request.seed = command.seed;
  request.atol = parse_tolerance("--atol", command.atol);
  request.rtol = parse_tolerance("--rtol", command.rtol);
  request.effort = command.effort;
  request.target_ms = command.target_ms;
  request.min_effect = command.min_effect;
  request.timeout_per_kernel_s = command.timeout_per_kernel_s;
  request.triad_min_mib = command.triad_min_mib;
  request.require_quiet_s = command.require_quiet_s;
  return request;
}

}  // namespace

int run(const run_command& command) {
  // Everything is checked before anything runs: bad input exits 2 without side effects.
  const auto shard = runner::parse_shard(command.shard);
  const auto full_plan = runner::plan_suite(selection_of(command));
  const auto items = runner::select_shard(full_plan, shard);
  const runner::suite_run_plan plan = runner::plan_suite_run(request_of(command), items, full_plan);
  const runner::tuning_options tuning =
      tuning_options_from(command.tuning, command.effort, plan.options.backend, command.seed);
  if (command.list) {  // the plan only, one "kernel shape" line per item: what this shard would run
    for (const auto& item : plan.items) {
      fmt::print("{} {}\n", item.kernel->name, to_string(item.kernel->shapes[item.shape_index]));
    }
    return 0;
  }
  if (shard.count > 1) {
    fmt::print(stderr, "[kbench] shard {}/{}: {} of {} kernel x shape items\n", shard.index, shard.count,
               items.size(), full_plan.size());
  }
  if (!command.output.empty()) io::check_appendable(command.output);
  // The history is opened first: an unreachable database is reported before anything runs.
  std::unique_ptr<history::store> db;
  if (!command.db.empty()) db = history::open_store(command.db);

  const auto progress = [](const std::string& line) {
    fmt::print(stderr, "{}{}", line, line.starts_with('\r') ? "" : "\n");  // "\r...": a redrawn status line
  };
  const runner::suite_run_result run =
      runner::run_suite_plan(plan, tuning, progress, ::isatty(STDERR_FILENO) != 0);
  fmt::print("{}", runner::render_suite_run(plan, run, tuning));

  const nlohmann::json records = runner::suite_run_records(plan, run);
  bool saved = command.output.empty() || save_records(command.output, records);
  if (db) {
    std::string commit = command.commit;
    if (const char* sha = std::getenv("GITHUB_SHA"); commit.empty() && sha != nullptr) commit = sha;
    try {
      const auto added = db->add(history::runs_from_records(records, commit));
      fmt::print("stored {} points in {}\n", added.points_added, db->description());
    } catch (const std::exception& e) {  // the database went away during the run: the records stay on disk
      fmt::print(stderr, "kbench: could not store the records in {}: {}\n", db->description(), e.what());
      if (command.output.empty() || !saved) (void)save_records("", records);
      saved = false;
    }
  }
  return run.all_passed() && saved ? 0 : 1;
}

}  // namespace kbench::cli
