// The HTML report without a browser: chart primitives, what each kernel section holds, the regression rings,
// the calibration text, escaping, and that nothing points outside the file.

#include "report/svg_axis.hpp"
#include "report/svg_bar_chart.hpp"
#include "report/svg_line_chart.hpp"
#include "unit/history_test_data.hpp"

#include <kbench/history/records.hpp>
#include <kbench/history/regressions.hpp>
#include <kbench/io/run_marks.hpp>
#include <kbench/report/html_report.hpp>

#include <gtest/gtest.h>

#include <string>

namespace kbench::test {
using namespace kbench::suite;  // the suite's kernel API, unqualified
namespace {

std::size_t count(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + part.size())) ++n;
  return n;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

/// The text of the <section> of `kernel` (empty when there is none).
std::string section_of(const std::string& html, const std::string& kernel) {
  const auto start = html.find("data-kernel=\"" + kernel + "\"");
  if (start == std::string::npos) return {};
  return html.substr(start, html.find("</section>", start) - start);
}

/// One record of `metric` of exp's kbench on `backend` (kbench-cpu unless said) at `shape`: bandwidth_gbps
/// (what `kbench run` writes when a kernel declares its bytes moved), triad_fraction (for a shape larger
/// than the caches) or gflops (for a compute-bound shape).
nlohmann::json kbench_record(std::int64_t timestamp, const std::string& shape, const std::string& metric,
                             double value, backend_kind backend = backend_kind::cpu) {
  device_info device;
  device.backend = backend;
  device.name = "Test CPU";
  io::record_context context;
  context.kernel = "exp";
  context.shape = shape;
  context.device = device;
  context.timestamp = timestamp;
  return io::make_record(context, metric, {value});
}

nlohmann::json bandwidth_record(std::int64_t timestamp, const std::string& shape, double gbps) {
  return kbench_record(timestamp, shape, "bandwidth_gbps", gbps);
}

/// `runs` nightly runs of sample_run (exp at [1024] and [4096], kbench-cpu and torch); from run `step_at`
/// on the latencies are `step` times higher.
std::vector<history::series_history> nightly(int runs, int step_at, double step) {
  std::vector<history::run_records> all;
  for (int i = 0; i < runs; ++i) {
    const std::int64_t t = 1764500000 + 86400 * i;
    nlohmann::json records = sample_run(t, i >= step_at ? step : 1.0, static_cast<std::uint64_t>(100 * i));
    records.push_back(bandwidth_record(t, "[1024]", 8.0));
    records.push_back(bandwidth_record(t, "[4096]", 12.0));
    for (auto& r : history::runs_from_records(records, "c" + std::to_string(i))) all.push_back(std::move(r));
  }
  return report::series_of_runs(all);
}

std::optional<calibration> twenty_gbps(const history::series_key& key) {
  calibration c;
  c.backend = key.runner_name;
  c.device = key.runner_type;
  c.triad_gbps = 20;
  return c;
}

report::html_report_options with_peak() {
  report::html_report_options options;
  options.peak = twenty_gbps;
  return options;
}

TEST(SvgAxis, EscapesMarkupAndQuotes) {
  EXPECT_EQ(report::svg::escape(R"(<a href="x">&'</a>)"), "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;");
}

TEST(SvgAxis, FormatsWithSignificantDigitsAndNoTrailingZeros) {
  using report::svg::format_number;
  EXPECT_EQ(format_number(0.012345), "0.0123");
  EXPECT_EQ(format_number(1.5), "1.5");
  EXPECT_EQ(format_number(2500), "2500");
  EXPECT_EQ(format_number(0), "0");
  EXPECT_EQ(format_number(3e-6), "3.00e-06");
  EXPECT_EQ(format_number(std::nan("")), "-");
}

TEST(SvgAxis, NiceTicksCoverTheDataWithRoundSteps) {
  const auto a = report::svg::nice_axis(0.013, 0.047, 5);
  EXPECT_LE(a.lo, 0.013);
  EXPECT_GE(a.hi, 0.047);
  EXPECT_DOUBLE_EQ(a.step, 0.01);
  EXPECT_EQ(a.ticks.size(), 5u);  // 0.01 .. 0.05
  const auto zero = report::svg::nice_axis(0.8, 2.3, 5, /*from_zero=*/true);
  EXPECT_EQ(zero.lo, 0);
  EXPECT_GE(zero.hi, 2.3);
  const auto flat = report::svg::nice_axis(4, 4, 5);
  EXPECT_LT(flat.lo, 4);
  EXPECT_GT(flat.hi, 4);
}

TEST(SvgBarChart, DrawsOneLabelledBarPerItemAndTheReferenceLine) {
  report::svg::bar_chart chart;
  chart.bars = {{"[1024]", 2.0, "2x", "faster", ""}, {"[4096]", 0.5, "0.5x", "slower", "<tip>"}};
  chart.reference = 1;
  chart.reference_label = "torch";
  const std::string svg = report::svg::render(chart);
  EXPECT_EQ(svg.rfind("<svg class=\"chart bars\"", 0), 0u);
  EXPECT_EQ(count(svg, "<rect class=\"bar faster\""), 1u);
  EXPECT_EQ(count(svg, "<rect class=\"bar slower\""), 1u);
  EXPECT_TRUE(contains(svg, "&lt;tip&gt;"));
  EXPECT_EQ(count(svg, "class=\"reference\""), 1u);
  EXPECT_FALSE(contains(svg, "xmlns")) << "inline SVG needs no namespace URL";
}

TEST(SvgAxis, LogAxesTickAtOneTwoFiveOrAtDecades) {
  const auto narrow = report::svg::log_axis(0.56, 1.0);
  EXPECT_DOUBLE_EQ(narrow.lo, 0.5);
  EXPECT_DOUBLE_EQ(narrow.hi, 1.0);
  EXPECT_EQ(narrow.ticks, (std::vector<double>{0.5, 1.0}));
  const auto wide = report::svg::log_axis(0.56, 1062);
  EXPECT_DOUBLE_EQ(wide.lo, 0.1);
  EXPECT_DOUBLE_EQ(wide.hi, 10000);
  EXPECT_EQ(wide.ticks.size(), 6u) << "decades only";
  // 1x sits as far from 0.1x as 10x does.
  EXPECT_NEAR(report::svg::scale(wide, 1, 0, 400) - report::svg::scale(wide, 0.1, 0, 400),
              report::svg::scale(wide, 10, 0, 400) - report::svg::scale(wide, 1, 0, 400), 1e-9);
}

TEST(SvgBarChart, OnALogScaleASlowerBarGrowsLeftFromTheReference) {
  report::svg::bar_chart chart;
  chart.bars = {{"a", 4.0, "4x", "faster", ""}, {"b", 0.25, "0.25x", "slower", ""}};
  chart.reference = 1;
  chart.log_scale = true;
  chart.width = 400;
  const std::string svg = report::svg::render(chart);
  // Both bars start or end at the reference line, with the same length (a factor of 4 either way).
  auto number_after = [&](const std::string& from, const std::string& attribute) {
    const auto at = svg.find(attribute, svg.find(from)) + attribute.size();
    return std::stod(svg.substr(at));
  };
  const double reference = number_after("class=\"reference\"", "x1=\"");
  const double faster_x = number_after("bar faster", "x=\""),
               faster_w = number_after("bar faster", "width=\"");
  const double slower_x = number_after("bar slower", "x=\""),
               slower_w = number_after("bar slower", "width=\"");
  EXPECT_NEAR(faster_x, reference, 0.11);
  EXPECT_NEAR(slower_x + slower_w, reference, 0.11);
  EXPECT_NEAR(faster_w, slower_w, 0.2);
  EXPECT_TRUE(contains(svg, "text-anchor=\"end\">0.25x</text>"));
}

TEST(SvgLineChart, DrawsALinePerSeriesAndRingsOnlyTheFlaggedPoints) {
  report::svg::line_chart chart;
  chart.runs = {"11-30 01:00", "12-01 01:00", "12-02 01:00"};
  report::svg::line_series a{"kbench-cpu", "impl-0", false, {}};
  a.points = {{0, 1.0, report::svg::point_mark::none, ""},
              {1, 1.1, report::svg::point_mark::suspicious, ""},
              {2, 1.3, report::svg::point_mark::regression, ""}};
  report::svg::line_series b{"torch", "impl-torch", true, {{2, 2.0, report::svg::point_mark::none, ""}}};
  chart.series = {a, b};
  const std::string svg = report::svg::render(chart);
  EXPECT_EQ(count(svg, "<polyline class=\"line impl-0\""), 1u);
  EXPECT_EQ(count(svg, "<polyline"), 1u) << "a single point draws no line";
  EXPECT_EQ(count(svg, "<circle class=\"pt "), 4u);
  EXPECT_EQ(count(svg, "<circle class=\"mark suspicious\""), 1u);
  EXPECT_EQ(count(svg, "<circle class=\"mark regression\""), 1u);
}

TEST(SvgLineChart, ValuesSpanningMoreThanTwentyTimesGetALogAxis) {
  report::svg::line_chart chart;
  chart.runs = {"a", "b"};
  chart.y_unit = "ms";
  chart.series = {
      {"kbench",
       "impl-0",
       false,
       {{0, 0.01, report::svg::point_mark::none, ""}, {1, 0.012, report::svg::point_mark::none, ""}}}};
  EXPECT_FALSE(contains(report::svg::render(chart), "(log scale)"));
  chart.series.push_back(
      {"torch",
       "impl-torch",
       true,
       {{0, 8.0, report::svg::point_mark::none, ""}, {1, 20.0, report::svg::point_mark::none, ""}}});
  const std::string svg = report::svg::render(chart);
  EXPECT_TRUE(contains(svg, "ms (log scale)"));
  EXPECT_TRUE(contains(svg, ">0.01</text>"));
  EXPECT_TRUE(contains(svg, ">10</text>"));
}

TEST(HtmlReport, SeriesOfRunsOrdersRunsInTimeAndKeepsTheLastCopyOfARun) {
  auto runs = history::runs_from_records(sample_run(1764600000, 1.0), "new");
  auto older = history::runs_from_records(sample_run(1764500000, 1.0), "old");
  auto again = history::runs_from_records(sample_run(1764600000, 2.0), "again");
  runs.insert(runs.end(), older.begin(), older.end());
  runs.insert(runs.end(), again.begin(), again.end());
  const auto series = report::series_of_runs(runs);
  ASSERT_EQ(series.size(), 14u);
  for (const auto& s : series) {
    ASSERT_EQ(s.points.size(), 2u) << s.key.metric;
    EXPECT_EQ(s.points[0].run.commit, "old");
    EXPECT_EQ(s.points[1].run.commit, "again");
  }
}

TEST(HtmlReport, EachKernelHasSpeedupBarsLatencyLinesPerShapeAndTheThreeMeasureTable) {
  const auto series = nightly(4, 99, 1.0);
  const auto page = report::render_html_report({"test", series}, with_peak());
  EXPECT_EQ(page.kernels, 1u);
  EXPECT_EQ(page.runs, 4u);
  const std::string exp = section_of(page.html, "exp");
  ASSERT_FALSE(exp.empty()) << page.html;
  // Speedup 2x at both shapes, drawn faster than torch.
  EXPECT_EQ(count(exp, "<rect class=\"bar faster\""), 2u);
  EXPECT_TRUE(contains(exp, ">2x</text>"));
  // One latency chart per shape, smaller shape first, each with a kbench line and a dashed torch line.
  EXPECT_EQ(count(exp, "<svg class=\"chart lines\""), 2u);
  EXPECT_LT(exp.find("data-shape=\"[1024]\""), exp.find("data-shape=\"[4096]\""));
  EXPECT_EQ(count(exp, "<polyline class=\"line impl-0\""), 2u);
  EXPECT_EQ(count(exp, "<polyline class=\"line impl-torch dashed\""), 2u);
  EXPECT_EQ(count(exp, "<circle class=\"pt "), 2u * 2u * 4u);  // shapes x implementations x runs
  // % of the 20 GB/s peak: 8 GB/s is 40%.
  EXPECT_EQ(count(exp, "<rect class=\"bar bandwidth\""), 2u);
  EXPECT_TRUE(contains(exp, "40% (8 GB/s)")) << exp;
  EXPECT_FALSE(contains(exp, "no calibration"));
  EXPECT_FALSE(contains(exp, "bar triad"));  // no shape had a triad timed beside it
  // The table: one row per shape x implementation with the three measures.
  EXPECT_EQ(count(exp, "<tr><td class=\"mono\">"), 4u);
  EXPECT_TRUE(contains(exp, "<th>Wall latency (ms)</th><th>Throughput (ms)</th><th>Device time (ms)</th>"));
  EXPECT_TRUE(contains(page.html, "No latency regression flagged"));
}

/// nightly(runs, step_at, step) whose runs from `busy_from` on were timed on a busy machine (a
/// machine_disturbed record of 1 beside every implementation x shape; 0 before).
std::vector<history::series_history> nightly_with_machine(int runs, int step_at, double step, int busy_from) {
  std::vector<history::run_records> all;
  for (int i = 0; i < runs; ++i) {
    const std::int64_t t = 1764500000 + 86400 * i;
    nlohmann::json records = sample_run(t, i >= step_at ? step : 1.0, static_cast<std::uint64_t>(100 * i));
    nlohmann::json marks = nlohmann::json::array();
    for (const auto& r : records) {
      if (r.at("metric").at("name") != "latency_ms") continue;
      nlohmann::json m = r;
      m["metric"]["name"] = "machine_disturbed";
      m["metric"]["benchmark_values"] = {i >= busy_from ? 1.0 : 0.0};
      marks.push_back(std::move(m));
    }
    for (auto& m : marks) records.push_back(std::move(m));
    for (auto& r : history::runs_from_records(records, "c" + std::to_string(i))) all.push_back(std::move(r));
  }
  return report::series_of_runs(all);
}

TEST(HtmlReport, PointsTimedOnABusyMachineAreMarkedAndNotJudged) {
  // The same step as above, but the two slow nights were timed on a busy machine.
  const auto series = nightly_with_machine(10, 8, 1.3, 8);
  const auto page = report::render_html_report({"test", series}, with_peak());
  const std::string exp = section_of(page.html, "exp");
  EXPECT_EQ(count(exp, "<rect class=\"mark disturbed\""), 8u) << exp;  // 2 nights x 2 shapes x 2 impls
  EXPECT_EQ(count(exp, "<circle class=\"mark regression\""), 0u) << exp;
  EXPECT_EQ(count(exp, "<circle class=\"mark suspicious\""), 0u) << exp;
  EXPECT_EQ(page.regressions, 0u);
  EXPECT_TRUE(contains(exp, "timed on a busy machine (not judged)")) << exp;
  EXPECT_TRUE(contains(exp, "timed on a busy machine: not judged")) << exp;  // a point's tooltip
  // kbench regressions leaves them out too; the same nights on a quiet machine are a regression.
  EXPECT_FALSE(history::any_regression(history::find_regressions(series, {})));
  EXPECT_TRUE(history::any_regression(history::find_regressions(nightly_with_machine(10, 8, 1.3, 99), {})));
  for (const auto& v : history::find_regressions(series, {})) {
    EXPECT_NE(v.key.metric, "machine_disturbed");  // the machine's own series is never judged
  }
}

TEST(HtmlReport, ALatencyStepIsRingedSuspiciousThenRegressionAndSummarized) {
  const auto series = nightly(10, 8, 1.3);  // 8 nights at 1x, then 2 nights 30% slower
  const auto page = report::render_html_report({"test", series}, with_peak());
  const std::string exp = section_of(page.html, "exp");
  // Both implementations at both shapes: the 9th night is suspicious, the 10th a regression.
  EXPECT_EQ(count(exp, "<circle class=\"mark suspicious\""), 4u) << exp;
  EXPECT_EQ(count(exp, "<circle class=\"mark regression\""), 4u);
  EXPECT_EQ(page.regressions, 4u);
  EXPECT_EQ(page.suspicious, 0u);
  EXPECT_TRUE(contains(page.html, "<ul class=\"flags\"><li class=\"regression\">"));
  EXPECT_TRUE(contains(exp, "<td class=\"regression\">regression +")) << exp;
  // The speedup fell to 2 / 1.3.
  EXPECT_TRUE(contains(exp, ">1.54x</text>")) << exp;
}

TEST(HtmlReport, AShapeWithATriadBesideItShowsItsNewestShareOfThatTriad) {
  std::vector<history::run_records> all;
  for (int i = 0; i < 2; ++i) {
    const std::int64_t t = 1764500000 + 86400 * i;
    nlohmann::json records = sample_run(t, 1.0, static_cast<std::uint64_t>(100 * i));
    records.push_back(bandwidth_record(t, "[4096]", 12.0));
    records.push_back(kbench_record(t, "[4096]", "triad_fraction", i == 0 ? 0.37 : 0.86));
    for (auto& r : history::runs_from_records(records, "c" + std::to_string(i))) all.push_back(std::move(r));
  }
  const auto page = report::render_html_report({"test", report::series_of_runs(all)}, with_peak());
  const std::string exp = section_of(page.html, "exp");
  EXPECT_EQ(count(exp, "<rect class=\"bar triad\""), 1u) << exp;
  EXPECT_TRUE(contains(exp, ">86%</text>")) << exp;  // the newest run's, not the first's 37%
  EXPECT_FALSE(contains(exp, ">37%</text>")) << exp;
  EXPECT_TRUE(contains(exp, "of a triad timed in the same turns"));
}

TEST(HtmlReport, AComputeBoundShapeShowsItsGflopsInsteadOfItsShareOfTheBandwidth) {
  nlohmann::json records = sample_run(1764500000, 1.0);
  records.push_back(bandwidth_record(1764500000, "[1024]", 8.0));
  records.push_back(bandwidth_record(1764500000, "[4096]", 3.0));  // bmm-like: 3 GB/s, 139 GFLOP/s
  records.push_back(kbench_record(1764500000, "[4096]", "gflops", 139.0));
  const auto page = report::render_html_report(
      {"test", report::series_of_runs(history::runs_from_records(records, "c"))}, with_peak());
  const std::string exp = section_of(page.html, "exp");
  EXPECT_EQ(count(exp, "<rect class=\"bar compute\""), 1u) << exp;
  EXPECT_TRUE(contains(exp, ">139 GFLOP/s</text>")) << exp;
  EXPECT_EQ(count(exp, "<rect class=\"bar bandwidth\""), 1u) << exp;  // [1024] only
  EXPECT_TRUE(contains(exp, "40% (8 GB/s)")) << exp;
  EXPECT_FALSE(contains(exp, "15% (3 GB/s)")) << exp;
}

TEST(HtmlReport, BarsOfAKernelWithTwoKbenchVariantsNameTheVariant) {
  nlohmann::json records = nlohmann::json::array();
  for (const auto backend : {backend_kind::cpu, backend_kind::opencl}) {
    records.push_back(kbench_record(1764500000, "[4096]", "bandwidth_gbps", 12.0, backend));
    records.push_back(kbench_record(1764500000, "[4096]", "triad_fraction", 0.5, backend));
  }
  const auto page = report::render_html_report(
      {"test", report::series_of_runs(history::runs_from_records(records, "c"))}, with_peak());
  const std::string exp = section_of(page.html, "exp");
  EXPECT_EQ(count(exp, "<rect class=\"bar bandwidth\""), 2u) << exp;
  EXPECT_EQ(count(exp, "<rect class=\"bar triad\""), 2u) << exp;
  // Each bar of the % of peak and the % triad charts says whose it is.
  EXPECT_EQ(count(exp, ">[4096] kbench-cpu</text>"), 2u) << exp;
  EXPECT_EQ(count(exp, ">[4096] kbench-opencl</text>"), 2u) << exp;
}

TEST(HtmlReport, ABandwidthAboveThePeakIsDrawnAsCacheNotAsAPercentage) {
  nlohmann::json records = nlohmann::json::array();
  records.push_back(kbench_record(1764500000, "[1024]", "bandwidth_gbps", 60.0));  // 300% of 20 GB/s
  records.push_back(kbench_record(1764500000, "[4096]", "bandwidth_gbps", 10.0));
  const auto page = report::render_html_report(
      {"test", report::series_of_runs(history::runs_from_records(records, "c"))}, with_peak());
  const std::string exp = section_of(page.html, "exp");
  EXPECT_EQ(count(exp, "<rect class=\"bar cache\""), 1u) << exp;
  EXPECT_TRUE(contains(exp, "cache (60 GB/s)")) << exp;
  EXPECT_FALSE(contains(exp, "300%")) << exp;
  EXPECT_TRUE(contains(exp, "50% (10 GB/s)")) << exp;
  EXPECT_TRUE(contains(exp, "served by the caches")) << exp;
}

TEST(HtmlReport, DrawsTheRunsOwnVerdictsAndCacheMarksNotItsOwn) {
  // What kbench run printed as "1.07x unreliable" (timed on a busy machine) and "cache" in % peak BW (the
  // shape fits the caches, at 31% of the peak) stays so in the report, from the run's marks.
  nlohmann::json records = nlohmann::json::array();
  records.push_back(kbench_record(1764500000, "[1024]", "speedup", 1.07));
  records.push_back(kbench_record(1764500000, "[1024]", "speedup_verdict", *io::verdict_code("unreliable")));
  records.push_back(kbench_record(1764500000, "[1024]", "bandwidth_gbps", 6.2));
  records.push_back(kbench_record(1764500000, "[1024]", "served_from_cache", 1.0));
  records.push_back(kbench_record(1764500000, "[4096]", "speedup", 1.01));
  records.push_back(kbench_record(1764500000, "[4096]", "speedup_verdict", *io::verdict_code("same")));
  records.push_back(kbench_record(1764500000, "[4096]", "bandwidth_gbps", 10.0));
  records.push_back(kbench_record(1764500000, "[4096]", "served_from_cache", 0.0));
  const auto series = report::series_of_runs(history::runs_from_records(records, "c"));
  const auto page = report::render_html_report({"test", series}, with_peak());
  const std::string exp = section_of(page.html, "exp");
  EXPECT_EQ(count(exp, "<rect class=\"bar unreliable\""), 1u) << exp;
  EXPECT_TRUE(contains(exp, "1.07x unreliable")) << exp;
  EXPECT_EQ(count(exp, "<rect class=\"bar same\""), 1u) << exp;
  EXPECT_TRUE(contains(exp, "1.01x same")) << exp;
  EXPECT_EQ(count(exp, "<rect class=\"bar faster\""), 0u) << exp;
  EXPECT_TRUE(contains(exp, "cache (6.2 GB/s)")) << exp;
  EXPECT_FALSE(contains(exp, "31%")) << exp;
  EXPECT_TRUE(contains(exp, "50% (10 GB/s)")) << exp;
  // The marks are not series of their own, and never judged as regressions.
  EXPECT_FALSE(contains(exp, "speedup_verdict")) << exp;
  for (const auto& v : history::find_regressions(series, {})) EXPECT_FALSE(io::is_mark_metric(v.key.metric));
}

TEST(HtmlReport, WithoutCalibrationItSaysSoAndShowsTheAchievedBandwidth) {
  const auto page = report::render_html_report({"test", nightly(2, 99, 1.0)}, {});
  const std::string exp = section_of(page.html, "exp");
  EXPECT_TRUE(contains(exp, "no calibration for cpu: Test CPU")) << exp;
  EXPECT_EQ(count(exp, "<rect class=\"bar uncalibrated\""), 2u);
  EXPECT_TRUE(contains(exp, "12 GB/s"));
}

TEST(HtmlReport, IsSelfContainedAndEscapesNames) {
  auto series = nightly(2, 99, 1.0);
  for (auto& s : series) s.key.kernel = "<b>exp</b>";
  const auto page = report::render_html_report({"a&b.json", series}, {});
  const std::string& html = page.html;
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_TRUE(contains(html, "<style>"));
  for (const char* external : {"http:", "https:", "<script", "<link", "<img", "url(", "@import", "src="}) {
    EXPECT_FALSE(contains(html, external)) << external;
  }
  EXPECT_FALSE(contains(html, "<b>exp</b>"));
  EXPECT_TRUE(contains(html, "&lt;b&gt;exp&lt;/b&gt;"));
  EXPECT_TRUE(contains(html, "a&amp;b.json"));
}

TEST(HtmlReport, AKernelWithoutTorchSaysThereIsNoSpeedup) {
  auto series = nightly(2, 99, 1.0);
  std::erase_if(series, [](const history::series_history& s) {
    return s.key.implementation == "torch" || s.key.metric == "speedup";
  });
  const auto page = report::render_html_report({"test", series}, {});
  const std::string exp = section_of(page.html, "exp");
  EXPECT_TRUE(contains(exp, "No speedup")) << exp;
  EXPECT_EQ(count(exp, "<svg class=\"chart lines\""), 2u);
  EXPECT_EQ(count(exp, "impl-torch"), 0u);
}

}  // namespace
}  // namespace kbench::test
