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
#include "numeric_option.hpp"
#include "save_records.hpp"
#include "spec_files.hpp"
#include "subcommand.hpp"
#include "tolerance_option.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <limits>
#include <memory>

namespace kbench::cli {
using namespace kbench::suite;  // the suite's kernel API, unqualified

namespace {

/// The kernels and shapes asked for: --kernel, the kernels of --spec files (with --builtin, the built-in
/// ones too), --num-shapes, --shape-index, --shape.
suite::suite_selection selection_of(const run_command& command) {
  suite::suite_selection selection;
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

suite::suite_run_request request_of(const run_command& command) {
  suite::suite_run_request request = command.request;
  request.atol = parse_tolerance("--atol", command.atol);
  request.rtol = parse_tolerance("--rtol", command.rtol);
  return request;
}

}  // namespace

int run(const run_command& command) {
  // Everything is checked before anything runs: bad input exits 2 without side effects.
  const auto shard = suite::parse_shard(command.shard);
  const auto full_plan = suite::plan_suite(selection_of(command));
  const auto items = suite::select_shard(full_plan, shard);
  const suite::suite_run_plan plan = suite::plan_suite_run(request_of(command), items, full_plan);
  const suite::tuning_options tuning =
      tuning_options_from(command.tuning, command.request.effort, plan.options.backend, command.request.seed);
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
  const suite::suite_run_result run =
      suite::run_suite_plan(plan, tuning, progress, ::isatty(STDERR_FILENO) != 0);
  fmt::print("{}", suite::render_suite_run(plan, run, tuning));

  const nlohmann::json records = suite::suite_run_records(plan, run);
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

namespace {

// `kbench run`'s flags.
const subcommand_registration run_registration{
    "run",
    "The suite: check every kernel x shape against torch and time it against the torch baseline; summary "
    "table and v3 JSON",
    [](CLI::App& app) {
      auto options = std::make_shared<run_command>();
      app.add_option("--kernel,--kernels,--op", options->kernels,
                     "Kernels to run, comma-separated (default: all)")
          ->delimiter(',');
      app.add_option(
             "--spec", options->specs,
             "Kernels described in files (docs/specs.md), comma-separated: run these (and the --kernel ones, "
             "or with --builtin every built-in kernel)")
          ->delimiter(',');
      app.add_flag("--builtin", options->builtin, "With --spec: run the built-in kernels too");
      app.add_option("--backend", options->request.backend, "auto, cpu, opencl or cuda")
          ->capture_default_str();
      app.add_option("--impl", options->request.impls,
                     "Implementations to time: kbench, torch (default: both)")
          ->delimiter(',');
      auto* num_shapes_opt =
          app.add_option("--num-shapes", options->num_shapes, "Only the first N shapes of each kernel")
              ->check(count_in(1, 1e6));
      auto* run_shape_opt = app.add_option("--shape", options->shape,
                                           "Only this shape of each kernel that has it, e.g. [1024,256]")
                                ->excludes(num_shapes_opt);
      app.add_option("--shape-index", options->shape_index, "Only shape I of each kernel")
          ->check(CLI::Range(0, std::numeric_limits<int>::max()))
          ->excludes(run_shape_opt);
      app.add_option("--seed", options->request.seed, "Seed of the deterministic inputs")
          ->capture_default_str()
          ->check(any_seed());
      app.add_option("--atol", options->atol, "Absolute tolerance (default: each kernel's)");
      app.add_option(
             "--require-quiet", options->request.require_quiet_s,
             "Wait up to S seconds per shape for a quiet machine, and fail a shape timed while it was busy "
             "(for CI); 0: time anyway and mark it")
          ->capture_default_str()
          ->check(number_in(0, 3600));
      app.add_option(
             "--min-effect", options->request.min_effect,
             "Smallest speedup called faster or slower, as a fraction (0.02: kbench 2% apart from torch)")
          ->capture_default_str()
          ->check(number_in(0, 1));
      app.add_option("--rtol", options->rtol, "Relative tolerance (default: each kernel's)");
      app.add_option(
             "--effort", options->request.effort,
             "Tuning on a cache miss: none (default config), quick (<= 50 configs or 120 s per shape), "
             "full (<= 200 configs or 900 s)")
          ->capture_default_str();
      add_tuning_flags(app, options->tuning);
      app.add_option("--output", options->output, "Append v3 records to this JSON file");
      app.add_option("--db", options->db,
                     "Also store the records in this history database (postgresql://..., sqlite:///path)");
      app.add_option("--commit", options->commit,
                     "Commit recorded with the results in the history (default: $GITHUB_SHA)");
      app.add_option("--timeout-per-kernel", options->request.timeout_per_kernel_s,
                     "Seconds one kernel x shape may take")
          ->capture_default_str()
          ->check(number_in(0.001, 1e7));
      app.add_option("--target-ms", options->request.target_ms, "Time budget each repeat count fills [ms]")
          ->capture_default_str()
          ->check(number_in(0.001, 600000));
      app.add_option(
             "--triad-min-mib", options->request.triad_min_mib,
             "Shapes moving at least this many MiB per call also time a STREAM triad in their turns, for "
             "the % triad column (default: twice the last-level cache, counted at most 32 MiB per cpu "
             "sharing it, and at least 64)")
          ->check(number_in(0, 1e9));
      app.add_option("--shard", options->shard,
                     "Run only shard i of N (1-based, e.g. 2/4): every N-th kernel x shape of the plan")
          ->capture_default_str();
      app.add_flag("--list", options->list,
                   "Print the planned kernel x shape items (after --shard), then exit");
      auto list_kernels_too = std::make_shared<bool>(false);
      app.add_flag("--list-kernels", *list_kernels_too, "List kernels, shapes and backends, then exit");
      return [options, list_kernels_too] { return *list_kernels_too ? list_kernels() : run(*options); };
    }};
}  // namespace

}  // namespace kbench::cli
