#include <kbench/contention.hpp>
#include <kbench/io/text_table.hpp>
#include <kbench/suite/results_summary.hpp>

#include <fmt/format.h>

#include <cmath>
#include <iterator>
#include <string_view>

namespace kbench::suite {

namespace {

std::string ms_cell(const std::optional<impl_result>& r) {
  if (!r || r->latency_ms.empty()) return "-";
  return fmt::format("{:.4f}", r->median_latency_ms());
}

// The % triad cell: kbench's share of the triad timed in its turns, and that triad's bandwidth, which on a
// shared host can be far from the calibrated one (on the development VM it jumped between about 47 and 77
// GB/s from one shape to the next), so that a reader sees which the share was taken against.
std::string triad_cell(double share, double triad_gbps) {
  return fmt::format("{:.0f}% of {:.0f} GB/s", 100.0 * share, triad_gbps);
}

}  // namespace

results_summary summarize_results(const std::vector<shape_result>& results,
                                  const results_summary_options& options) {
  results_summary summary;
  auto out = std::back_inserter(summary.text);
  std::vector<std::string> header{"Kernel", "Shape", "Status", "kbench (ms)", options.baseline + " (ms)"};
  if (options.baseline_setting) header.emplace_back(options.baseline + " setting");
  header.insert(header.end(), {"Speedup", "Interval", options.peak ? "% peak BW" : "GB/s"});
  if (options.triad) header.emplace_back("% triad");
  io::text_table table(header);
  std::size_t passed = 0;
  std::map<std::string_view, std::size_t> verdicts;  // faster / same / slower / unreliable -> ok shapes
  std::size_t disturbed = 0;                         // shapes timed while the machine was busy
  double log_speedup_sum = 0;
  std::size_t speedups = 0;
  std::vector<std::string>& reasons = summary.reasons;
  std::size_t disagreeing = 0;  // implementations whose three measures disagree
  for (const auto& r : results) {
    const auto s = r.speedup_interval(options.min_effect);
    std::string bw_cell = "-";
    const auto gflops = r.gflops();
    if (r.compute_bound() && gflops) {
      bw_cell = fmt::format("{:.0f} GFLOP/s", *gflops);  // its share of the bandwidth says nothing
      ++summary.compute_bound_shapes;
    } else if (const auto share = options.peak && r.kbench ? r.share_of_peak(options.peak->triad_gbps,
                                                                             cache_bytes_of(r.kbench->device))
                                                           : std::nullopt) {
      bw_cell = share->from_cache ? "cache" : fmt::format("{:.0f}%", 100.0 * share->fraction);
      if (share->from_cache) ++summary.cache_shapes;
    } else if (const auto gbps = options.peak ? std::nullopt : r.bandwidth_gbps()) {
      bw_cell = fmt::format("{:.1f}", *gbps);
    }
    const auto same_turns = r.triad_fraction();
    if (same_turns) ++summary.triad_shapes;
    std::vector<std::string> row{r.kernel, r.shape, std::string(to_string(r.status)), ms_cell(r.kbench),
                                 ms_cell(r.torch)};
    if (options.baseline_setting) row.push_back(r.baseline && r.torch ? r.baseline->describe() : "-");
    row.insert(row.end(),
               {s ? fmt::format("{:.2f}x", s->ratio) : "-",
                s ? fmt::format("{:.2f}-{:.2f} {}", s->low, s->high, s->verdict()) : "-", bw_cell});
    if (options.triad) row.push_back(same_turns ? triad_cell(*same_turns, r.triad->gbps().value_or(0)) : "-");
    table.add_row(std::move(row));
    if (r.status == shape_status::ok) {
      ++passed;
      if (s && s->ratio > 0) {
        ++verdicts[s->verdict()];
        if (!s->disturbed) {  // a busy machine's ratio says nothing about the kernels
          log_speedup_sum += std::log(s->ratio);
          ++speedups;
        }
      }
    } else {
      reasons.push_back(fmt::format("{} {}: {}: {}", r.kernel, r.shape, to_string(r.status), r.reason));
    }
    if (r.torch && !r.torch->baseline_form.empty()) summary.baseline_forms[r.kernel] = r.torch->baseline_form;
    for (const auto* impl : {&r.kbench, &r.torch}) {
      if (!*impl) continue;
      if (const std::string why = (*impl)->measures_disagreement(); !why.empty()) {
        ++disagreeing;
        reasons.push_back(fmt::format("{} {}: {}: {}", r.kernel, r.shape, (*impl)->impl, why));
      }
    }
    if (r.machine && !r.machine->quiet) {
      ++disturbed;
      reasons.push_back(
          fmt::format("{} {}: timed on a busy machine: {}", r.kernel, r.shape, r.machine->reason));
    }
  }
  fmt::format_to(out, "{}", table.render());
  fmt::format_to(out, "Total: {}/{} shapes passed", passed, results.size());
  if (results.size() < options.planned)
    fmt::format_to(out, " (interrupted: {} of {} shapes not run)", options.planned - results.size(),
                   options.planned);
  if (speedups > 0) {
    fmt::format_to(out, "; geometric-mean speedup {:.2f}x over {} shapes",
                   std::exp(log_speedup_sum / static_cast<double>(speedups)), speedups);
    if (verdicts["unreliable"] > 0)
      fmt::format_to(out, " ({} unreliable ones left out)", verdicts["unreliable"]);
  } else if (verdicts["unreliable"] > 0) {
    fmt::format_to(out, "; no geometric-mean speedup (every speedup was timed on a busy machine)");
  }
  fmt::format_to(out, "; wall time {:.1f} s\n", options.elapsed_s);
  if (speedups + verdicts["unreliable"] > 0) {
    // A ratio near 1 is often noise: the interval says whether the two were told apart at all.
    fmt::format_to(
        out,
        "Against {}: {} faster, {} same within noise, {} slower, {} unreliable (Interval: the\n"
        "speedup while each median ranges over its 99% confidence interval, >= 98% together;\n"
        "faster/slower when it excludes 1 and the speedup is at least {:g}% from 1; unreliable when\n"
        "other work took more than {:.0f}% of the CPUs while the shape was timed)\n",
        options.baseline, verdicts["faster"], verdicts["same"], verdicts["slower"], verdicts["unreliable"],
        100 * options.min_effect, 100 * max_quiet_others_fraction);
  }
  if (disagreeing > 0) {
    fmt::format_to(
        out,
        "Measures: {} implementation{} whose throughput or device time disagrees with the latency (below);\n"
        "the speedup uses the latency of the interleaved turns\n",
        disagreeing, disagreeing == 1 ? "" : "s");
  }
  if (disturbed > 0) {
    fmt::format_to(out, "Machine: {} of {} timed shapes were disturbed by other work (their reasons below)\n",
                   disturbed, results.size());
  } else {
    fmt::format_to(out, "Machine: quiet while every shape was timed\n");
  }
  return summary;
}

}  // namespace kbench::suite
