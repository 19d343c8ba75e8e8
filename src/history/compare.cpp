// Comparing two result files (see compare.hpp).

#include <kbench/history/compare.hpp>
#include <kbench/history/records.hpp>
#include <kbench/stats.hpp>

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <tuple>

namespace kbench::history {
namespace {

using compare_key =
    std::tuple<std::string, std::string, std::string, std::string>;  // kernel, shape, impl, metric

/// The samples of every latency series in `records`, the last record of a repeated key winning.
std::map<compare_key, std::vector<double>> latency_series(const nlohmann::json& records) {
  std::map<compare_key, std::vector<double>> out;
  for (const auto& record : records) {
    const series_key key = key_of(record);
    if (!is_latency_metric(key.metric)) continue;
    std::vector<double> values = values_of(record);
    if (values.empty()) continue;
    out[{key.kernel, key.shape, key.implementation, key.metric}] = std::move(values);
  }
  return out;
}

std::string describe(const compare_key& k) {
  return fmt::format("{} {} {} {}", std::get<0>(k), std::get<1>(k), std::get<2>(k), std::get<3>(k));
}

}  // namespace

std::string_view to_string(change c) {
  switch (c) {
    case change::faster:
      return "faster";
    case change::slower:
      return "slower";
    case change::same:
      return "same";
    case change::not_enough_samples:
      return "not enough samples";
  }
  return "?";
}

bool is_latency_metric(std::string_view metric) {
  return metric == "latency_ms" || metric == "throughput_ms" || metric == "device_ms";
}

comparison compare_records(const nlohmann::json& base, const nlohmann::json& newer, double alpha,
                           double min_effect) {
  const auto a = latency_series(base);
  const auto b = latency_series(newer);
  comparison result;
  std::map<std::string, std::pair<double, std::size_t>> log_sums;  // metric -> (sum of log ratios, count)
  for (const auto& [key, base_values] : a) {
    const auto it = b.find(key);
    if (it == b.end()) {
      result.only_in_base.push_back(describe(key));
      continue;
    }
    const auto& new_values = it->second;
    series_comparison s;
    std::tie(s.kernel, s.shape, s.implementation, s.metric) = key;
    s.base_samples = base_values.size();
    s.new_samples = new_values.size();
    s.base_median = quantile(base_values, 0.5);
    s.new_median = quantile(new_values, 0.5);
    s.ratio = s.base_median > 0 ? s.new_median / s.base_median : 0;
    s.test = mann_whitney_u(base_values, new_values, alpha);
    if (s.test.method == mann_whitney_method::not_enough_samples) {
      s.verdict = change::not_enough_samples;
    } else if (s.test.p_value < alpha && s.ratio > 0 && beyond_min_effect(s.ratio, min_effect)) {
      s.verdict = s.new_median < s.base_median ? change::faster : change::slower;
    } else {
      s.verdict = change::same;
    }
    if (s.base_median > 0 && s.new_median > 0) {
      auto& [sum, count] = log_sums[s.metric];
      sum += std::log(s.ratio);
      ++count;
    }
    result.series.push_back(std::move(s));
  }
  for (const auto& [key, values] : b) {
    if (!a.contains(key)) result.only_in_new.push_back(describe(key));
  }
  for (const auto& [metric, sums] : log_sums) {
    result.geomeans.push_back({metric, std::exp(sums.first / static_cast<double>(sums.second)), sums.second});
  }
  return result;
}

nlohmann::json to_json(const comparison& c) {
  nlohmann::json series = nlohmann::json::array();
  for (const auto& s : c.series) {
    series.push_back({{"kernel", s.kernel},
                      {"shape", s.shape},
                      {"implementation", s.implementation},
                      {"metric", s.metric},
                      {"base_samples", s.base_samples},
                      {"new_samples", s.new_samples},
                      {"base_median", s.base_median},
                      {"new_median", s.new_median},
                      {"ratio", s.ratio},
                      {"u", s.test.u},
                      {"p_value", s.test.p_value},
                      {"test", std::string(to_string(s.test.method))},
                      {"verdict", std::string(to_string(s.verdict))}});
  }
  nlohmann::json geomeans = nlohmann::json::array();
  for (const auto& g : c.geomeans)
    geomeans.push_back({{"metric", g.metric}, {"ratio", g.ratio}, {"series", g.series}});
  return {{"series", series},
          {"geomean", geomeans},
          {"only_in_base", c.only_in_base},
          {"only_in_new", c.only_in_new}};
}

}  // namespace kbench::history
