// The report's view of the results (see report_model.hpp).

#include "report/report_model.hpp"

#include <kbench/history/machine_marks.hpp>

namespace kbench::report::detail {

std::string utc(std::int64_t timestamp, const char* format) {
  const auto t = static_cast<std::time_t>(timestamp);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char text[64];
  std::strftime(text, sizeof(text), format, &tm);
  return text;
}

double shape_elements(const std::string& shape) {
  double product = 1;
  bool any = false;
  for (std::size_t i = 0; i < shape.size();) {
    if (std::isdigit(static_cast<unsigned char>(shape[i])) == 0) {
      ++i;
      continue;
    }
    double n = 0;
    while (i < shape.size() && std::isdigit(static_cast<unsigned char>(shape[i])) != 0) {
      n = n * 10 + (shape[i] - '0');
      ++i;
    }
    product *= n;
    any = true;
  }
  return any ? product : std::numeric_limits<double>::infinity();
}

bool shape_less(const std::string& a, const std::string& b) {
  const double ea = shape_elements(a), eb = shape_elements(b);
  return ea != eb ? ea < eb : a < b;
}

int implementation_rank(const std::string& implementation) {
  if (implementation.rfind("kbench", 0) == 0) return 0;
  return implementation == "torch" ? 2 : 1;
}

variant variant_of(const series_key& key) {
  return {key.implementation, key.runner_name, key.runner_type, key.backend};
}

bool variant_less(const variant& a, const variant& b) {
  return std::tuple(implementation_rank(a.implementation), a.implementation, a.runner_type, a.runner_name,
                    a.backend) < std::tuple(implementation_rank(b.implementation), b.implementation,
                                            b.runner_type, b.runner_name, b.backend);
}

std::vector<kernel_view> kernels_of(const std::vector<series_history>& all) {
  std::map<std::string, kernel_view> by_name;
  for (const auto& s : all) {
    if (s.points.empty()) continue;
    auto& k = by_name[s.key.kernel];
    k.name = s.key.kernel;
    if (std::find(k.shapes.begin(), k.shapes.end(), s.key.shape) == k.shapes.end())
      k.shapes.push_back(s.key.shape);
    const variant v = variant_of(s.key);
    if (std::find(k.variants.begin(), k.variants.end(), v) == k.variants.end()) k.variants.push_back(v);
    for (const auto& p : s.points) k.runs.push_back({p.run.timestamp, p.run.host});
  }
  std::vector<kernel_view> out;
  for (auto& [name, k] : by_name) {
    std::sort(k.shapes.begin(), k.shapes.end(), shape_less);
    std::sort(k.variants.begin(), k.variants.end(), variant_less);
    std::sort(k.runs.begin(), k.runs.end());
    k.runs.erase(std::unique(k.runs.begin(), k.runs.end()), k.runs.end());
    out.push_back(std::move(k));
  }
  for (auto& k : out) {
    for (const auto& s : all) {
      if (s.points.empty() || s.key.kernel != k.name) continue;
      const auto v = static_cast<std::size_t>(
          std::find(k.variants.begin(), k.variants.end(), variant_of(s.key)) - k.variants.begin());
      k.series[{v, s.key.shape, s.key.metric}] = &s;
    }
  }
  return out;
}

std::vector<history::detection> verdicts_over_time(const series_history& s,
                                                   const history::detector_options& options) {
  std::vector<double> values;
  values.reserve(s.points.size());
  for (const auto& p : s.points) values.push_back(p.median);
  const bool higher_better = history::higher_is_better(s.key.metric);
  std::vector<history::detection> out;
  out.reserve(values.size());
  for (std::size_t i = 1; i <= values.size(); ++i) {
    out.push_back(history::detect(std::span<const double>(values).first(i), higher_better, options));
  }
  return out;
}

svg::point_mark mark_of(verdict v) {
  switch (v) {
    case verdict::regression:
      return svg::point_mark::regression;
    case verdict::suspicious_regression:
      return svg::point_mark::suspicious;
    case verdict::improvement:
      return svg::point_mark::improvement;
    default:
      return svg::point_mark::none;
  }
}

std::string verdict_text(const history::detection& d) {
  if (d.status == verdict::insufficient_data || d.status == verdict::ok)
    return std::string(to_string(d.status));
  return fmt::format("{} {:+.1f}% against {}", to_string(d.status), d.change * 100,
                     svg::format_number(d.baseline));
}

std::string anchor_of(const std::string& kernel) {
  std::string id = "kernel-";
  for (char c : kernel) {
    const auto u = static_cast<unsigned char>(c);
    id += (std::isalnum(u) != 0 || c == '_' || c == '-') ? static_cast<char>(std::tolower(u)) : '-';
  }
  return id;
}

std::string run_text(const history::run_info& run) {
  std::string text = utc(run.timestamp, "%Y-%m-%d %H:%M UTC");
  if (!run.commit.empty()) text += ", commit " + run.commit.substr(0, 12);
  return text;
}

std::string legend(const kernel_view& k, const palette& colour) {
  std::string out = R"(<div class="legend">)";
  for (std::size_t v = 0; v < k.variants.size(); ++v) {
    bool drawn = false;
    for (const auto& shape : k.shapes) drawn = drawn || k.find(v, shape, "latency_ms") != nullptr;
    if (!drawn) continue;
    const bool torch = k.variants[v].implementation == "torch";
    out += fmt::format(
        R"(<span><svg width="26" height="10"><line class="{}" x1="1" y1="5" x2="25" y2="5" stroke-width="2"{}/></svg>{}</span>)",
        colour(k.variants[v].implementation), torch ? R"( stroke-dasharray="5 4")" : "",
        svg::escape(k.label(v)));
  }
  bool any_disturbed = false;
  for (const auto& [where, s] : k.series) {
    if (std::get<2>(where) != history::machine_disturbed_metric) continue;
    for (const auto& p : s->points) any_disturbed = any_disturbed || p.median >= 0.5;
  }
  if (any_disturbed) {
    out += R"(<span><svg width="18" height="18"><rect class="key disturbed" x="2.5" y="2.5" width="13" )"
           R"(height="13"/></svg>timed on a busy machine (not judged)</span>)";
  }
  for (const auto& [cls, text] : {std::pair{"regression", "regression (two runs out of line)"},
                                  std::pair{"suspicious", "suspicious (newest run out of line)"},
                                  std::pair{"improvement", "improvement"}}) {
    out += fmt::format(
        R"(<span><svg width="18" height="18"><circle class="key {}" cx="9" cy="9" r="6.5"/></svg>{}</span>)",
        cls, text);
  }
  return out + "</div>";
}

}  // namespace kbench::report::detail
