// The busy-machine marks of the history (see machine_marks.hpp).

#include <kbench/history/machine_marks.hpp>

namespace kbench::history {

namespace {

series_key without_metric(series_key key) {
  key.metric.clear();
  return key;
}

}  // namespace

bool is_machine_metric(std::string_view metric) {
  return io::is_mark_metric(metric);
}

disturbed_runs::disturbed_runs(const std::vector<series_history>& all) {
  for (const auto& s : all) {
    if (s.key.metric != machine_disturbed_metric) continue;
    for (const auto& p : s.points) {
      if (p.median >= 0.5) m_runs.emplace(without_metric(s.key), p.run.timestamp, p.run.host);
    }
  }
}

bool disturbed_runs::contains(const series_key& key, const run_info& run) const {
  return m_runs.count({without_metric(key), run.timestamp, run.host}) > 0;
}

std::vector<series_history> quiet_points_only(const std::vector<series_history>& all) {
  const disturbed_runs disturbed(all);
  std::vector<series_history> out;
  out.reserve(all.size());
  for (const auto& s : all) {
    if (is_machine_metric(s.key.metric)) continue;
    series_history kept{s.key, {}};
    for (const auto& p : s.points) {
      if (!disturbed.contains(s.key, p.run)) kept.points.push_back(p);
    }
    out.push_back(std::move(kept));
  }
  return out;
}

}  // namespace kbench::history
