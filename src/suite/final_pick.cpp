#include <kbench/suite/detail/final_pick.hpp>

#include <cstdint>

namespace kbench::suite {
namespace {

// [ms] the upper end of the interval of an outcome's median; the median itself when the worker gave none.
double interval_high(const trial_outcome& t) {
  return t.time_ci_high_ms > 0 ? t.time_ci_high_ms : t.time_ms;
}

// The values of the parameters preferred higher on a tie, in the space's order (missing ones count lowest).
std::vector<std::int64_t> preference_key(const config& values, const tune::space& space) {
  std::vector<std::int64_t> key;
  for (const tune::parameter& p : space.parameters()) {
    if (!p.prefers_higher_on_tie()) continue;
    const auto found = values.find(p.name());
    key.push_back(found == values.end() ? INT64_MIN : found->second);
  }
  return key;
}

}  // namespace

std::optional<final_pick> pick_final(std::span<const trial_outcome> retimed, const tune::space& space) {
  std::optional<std::size_t> fastest;
  for (std::size_t i = 0; i < retimed.size(); ++i) {
    if (retimed[i].status != tune::eval_status::ok) continue;
    if (!fastest || retimed[i].time_ms < retimed[*fastest].time_ms) fastest = i;
  }
  if (!fastest) return std::nullopt;
  final_pick pick;
  pick.fastest = pick.chosen = *fastest;
  const double fastest_high = interval_high(retimed[*fastest]);
  for (std::size_t i = 0; i < retimed.size(); ++i) {
    if (retimed[i].status == tune::eval_status::ok && retimed[i].time_ms <= fastest_high)
      pick.tied.push_back(i);
  }
  std::vector<std::int64_t> best_key = preference_key(retimed[*fastest].values, space);
  for (std::size_t i : pick.tied) {
    const std::vector<std::int64_t> key = preference_key(retimed[i].values, space);
    const bool preferred = key > best_key;
    const bool as_preferred_and_faster = key == best_key && retimed[i].time_ms < retimed[pick.chosen].time_ms;
    if (preferred || as_preferred_and_faster) {
      pick.chosen = i;
      best_key = key;
    }
  }
  return pick;
}

}  // namespace kbench::suite
