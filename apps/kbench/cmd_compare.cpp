// `kbench compare base.json new.json`: per kernel x shape x implementation x latency metric, the ratio of
// medians and a Mann-Whitney U test on the raw samples (see history/compare.hpp).

#include <kbench/error.hpp>
#include <kbench/history/compare.hpp>
#include <kbench/history/records.hpp>
#include <kbench/io/atomic_file.hpp>
#include <kbench/io/json_v3.hpp>
#include <kbench/io/replaceable_file.hpp>
#include <kbench/io/text_table.hpp>

#include "numeric_option.hpp"
#include "subcommand.hpp"

#include <fmt/format.h>

#include <memory>

namespace kbench::cli {
namespace {

struct compare_options {
  std::string base, newer;                 // v3 result files
  double alpha = 0.05;                     // significance level of the test
  double min_effect = default_min_effect;  // [fraction] the smallest change called faster or slower
  std::string json_path;
};

std::string p_text(const history::series_comparison& s) {
  if (s.test.method == history::mann_whitney_method::not_enough_samples) return "-";
  return s.test.p_value < 1e-4 ? "<1e-4" : fmt::format("{:.4f}", s.test.p_value);
}

/// The signature of the comparison JSON kbench writes (io/replaceable_file.hpp).
constexpr const char* compare_generator = "kbench compare";

int run_compare(const compare_options& options) {
  // Before reading anything: a file kbench did not write is never overwritten.
  if (!options.json_path.empty()) {
    io::check_replaceable(options.json_path, fmt::format("\"generator\": \"{}\"", compare_generator),
                          "the comparison");
  }
  const nlohmann::json base = history::read_results_file(options.base);
  const nlohmann::json newer = history::read_results_file(options.newer);
  const history::comparison c = history::compare_records(base, newer, options.alpha, options.min_effect);
  if (!options.json_path.empty()) {
    nlohmann::json doc = history::to_json(c);
    doc["base"] = options.base;
    doc["new"] = options.newer;
    doc["alpha"] = options.alpha;
    doc["min_effect"] = options.min_effect;
    doc["generator"] = compare_generator;
    io::write_file_atomically(options.json_path, doc.dump(2) + "\n");
  }
  if (c.series.empty()) {
    fmt::print("no latency series in common between {} and {}\n", options.base, options.newer);
  } else {
    io::text_table table({"Kernel", "Shape", "Implementation", "Metric", "Base (ms)", "New (ms)", "New/base",
                          "p", "Samples", "Verdict"});
    for (const auto& s : c.series) {
      table.add_row({s.kernel, s.shape, s.implementation, s.metric, fmt::format("{:.4g}", s.base_median),
                     fmt::format("{:.4g}", s.new_median), fmt::format("{:.4g}x", s.ratio), p_text(s),
                     fmt::format("{}/{}", s.base_samples, s.new_samples), std::string(to_string(s.verdict))});
    }
    fmt::print("{}", table.render());
  }
  for (const auto& g : c.geomeans) {
    fmt::print("geometric mean new/base {}: {:.3f}x over {} series present in both files\n", g.metric,
               g.ratio, g.series);
  }
  if (!c.only_in_base.empty() || !c.only_in_new.empty()) {
    fmt::print("not compared: {} series only in {}, {} only in {}\n", c.only_in_base.size(), options.base,
               c.only_in_new.size(), options.newer);
  }
  fmt::print(
      "(two-sided Mann-Whitney U test on the raw samples, alpha {:g}, and a change of at least {:g}%; below "
      "1x "
      "is faster)\n",
      options.alpha, 100 * options.min_effect);
  if (!options.json_path.empty()) fmt::print("wrote {}\n", options.json_path);
  return 0;
}

const subcommand_registration compare_registration{
    "compare", "Compare two v3 result files: faster / slower / same per series, with a Mann-Whitney U test",
    [](CLI::App& app) {
      auto options = std::make_shared<compare_options>();
      app.add_option("base", options->base, "The baseline v3 result file")->required();
      app.add_option("new", options->newer, "The v3 result file to compare with it")->required();
      app.add_option("--alpha", options->alpha, "Significance level of the test")
          ->capture_default_str()
          ->check(number_in(1e-9, 0.5));
      app.add_option("--min-effect", options->min_effect,
                     "Smallest change called faster or slower, as a fraction (0.02 = 2%)")
          ->capture_default_str()
          ->check(number_in(0, 1));
      app.add_option("--json", options->json_path, "Write the comparison as JSON to this file");
      return [options] { return run_compare(*options); };
    }};

}  // namespace
}  // namespace kbench::cli
