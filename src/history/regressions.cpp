// The regression report over the history (see regressions.hpp).

#include <kbench/history/machine_marks.hpp>
#include <kbench/history/regressions.hpp>

#include <algorithm>

namespace kbench::history {

std::vector<series_verdict> find_regressions(const std::vector<series_history>& all,
                                             const detector_options& options) {
  // Points timed on a busy machine describe the machine as much as the kernel: they are not judged.
  const std::vector<series_history> history = quiet_points_only(all);
  std::vector<series_verdict> out;
  out.reserve(history.size());
  for (const auto& series : history) {
    std::vector<double> medians;
    medians.reserve(series.points.size());
    for (const auto& p : series.points) medians.push_back(p.median);
    series_verdict v;
    v.key = series.key;
    v.runs = medians.size();
    if (!series.points.empty()) {
      v.newest_commit = series.points.back().run.commit;
      v.newest_timestamp = series.points.back().run.timestamp;
    }
    v.result = detect(medians, higher_is_better(series.key.metric), options);
    out.push_back(std::move(v));
  }
  return out;
}

bool any_regression(const std::vector<series_verdict>& verdicts) {
  return std::any_of(verdicts.begin(), verdicts.end(),
                     [](const series_verdict& v) { return v.result.status == verdict::regression; });
}

nlohmann::json to_json(const std::vector<series_verdict>& verdicts, const detector_options& options) {
  nlohmann::json series = nlohmann::json::array();
  for (const auto& v : verdicts) {
    const auto& k = v.key;
    const auto& r = v.result;
    nlohmann::json entry{{"runner_name", k.runner_name},
                         {"runner_type", k.runner_type},
                         {"backend", k.backend},
                         {"kernel", k.kernel},
                         {"shape", k.shape},
                         {"implementation", k.implementation},
                         {"metric", k.metric},
                         {"higher_is_better", higher_is_better(k.metric)},
                         {"runs", v.runs},
                         {"status", std::string(to_string(r.status))},
                         {"newest_commit", v.newest_commit},
                         {"newest_timestamp", v.newest_timestamp}};
    if (r.status != verdict::insufficient_data) {
      entry["newest"] = r.newest;
      entry["baseline"] = r.baseline;
      entry["baseline_runs"] = r.baseline_runs;
      entry["change"] = r.change;
      entry["interval"] = {r.lower, r.upper};
      entry["log_scale"] = r.log_scale;
    }
    series.push_back(std::move(entry));
  }
  return {{"generator", regressions_generator}, {"window", options.window},
          {"threshold", options.threshold},     {"confidence", options.confidence},
          {"min_history", options.min_history}, {"regression_found", any_regression(verdicts)},
          {"series", std::move(series)}};
}

}  // namespace kbench::history
