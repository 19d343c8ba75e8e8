// Standalone libtorch, without kbench's harness: the latency of at::exp_out and at::add_out into
// preallocated outputs with each thread count from 1 to the cores, for the shapes of kbench's exp and add
// suites. It is the yardstick for the thread count `kbench run` picks for its torch baseline
// (docs/baseline.md): run both in one session, as scripts/baseline-vs-standalone.sh does.
//
// Each thread count is timed in turns interleaved with the others (one untimed call after each switch, then
// timed calls; host steady clock around each synchronous call), so that a disturbance of the machine hits
// every thread count alike. libgomp's spin count is whatever the environment says (GOMP_SPINCOUNT), and is
// printed: it is fixed when the process starts.
//
// Usage: torch_threads [turns = 30] [target ms per turn = 5] [only this thread count]

#include <kbench/stats.hpp>

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <string>
#include <thread>
#include <vector>

namespace {

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

struct row {
  std::string op, shape;
  std::function<void()> call;
};

void time_row(const row& r, int cores, int turns, double turn_ms, int only) {
  // Calls per turn from one call's time, at least 4, at most 1000.
  at::set_num_threads(cores);
  r.call();
  double t0 = now_ms();
  r.call();
  const double one_ms = std::max(1e-4, now_ms() - t0);
  const int per_turn = std::clamp(static_cast<int>(turn_ms / one_ms), 4, 1000);
  std::vector<std::vector<double>> samples(static_cast<std::size_t>(cores));
  for (int turn = 0; turn < turns; ++turn) {
    for (int threads = 1; threads <= cores; ++threads) {
      if (only > 0 && threads != only) continue;
      at::set_num_threads(threads);
      r.call();  // untimed: the switch
      for (int i = 0; i < per_turn; ++i) {
        t0 = now_ms();
        r.call();
        samples[static_cast<std::size_t>(threads - 1)].push_back(now_ms() - t0);
      }
    }
  }
  std::string cells;
  int best = 1;
  double best_ms = 1e300;
  for (int threads = 1; threads <= cores; ++threads) {
    if (only > 0 && threads != only) {
      cells += fmt::format(" | {:>16}", "-");
      continue;
    }
    const auto s = kbench::summarize(samples[static_cast<std::size_t>(threads - 1)]);
    cells += fmt::format(" | {:>9.4f} ±{:>4.1f}%", s.median, 100 * kbench::relative_spread(s));
    if (s.median < best_ms) best_ms = s.median, best = threads;
  }
  fmt::print("| {:<4} | {:<12}{} | {:>4} |\n", r.op, r.shape, cells, best);
}

}  // namespace

int main(int argc, char** argv) {
  const int turns = argc > 1 ? std::max(1, std::atoi(argv[1])) : 30;
  const double turn_ms = argc > 2 ? std::max(0.1, std::atof(argv[2])) : 5;
  const int only = argc > 3 ? std::atoi(argv[3]) : 0;  // > 0: time this thread count alone
  const int cores = static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));
  const char* spin = std::getenv("GOMP_SPINCOUNT");
  fmt::print("libtorch standalone, {} cores, GOMP_SPINCOUNT={}, {} turns of ~{:g} ms per thread count\n",
             cores, spin == nullptr ? "(unset: libgomp's default)" : spin, turns, turn_ms);
  std::string header = "| op   | shape       ";
  std::string rule = "|------|-------------";
  for (int threads = 1; threads <= cores; ++threads) {
    header += fmt::format(" | {} thread{} ms (spread)", threads, threads == 1 ? "" : "s");
    rule += "|------------------------";
  }
  fmt::print("{} | best |\n{}|------|\n", header, rule);
  std::vector<row> rows;
  for (std::int64_t n = 1024; n <= 1048576; n *= 4) {
    auto x = at::rand({n}) * 16 - 8, y = at::empty({n});  // kbench exp's inputs: uniform in [-8, 8)
    rows.push_back({"exp", fmt::format("[{}]", n), [x, y]() mutable { at::exp_out(y, x); }});
  }
  for (std::int64_t s = 128; s <= 2048; s *= 2) {
    auto a = at::rand({s, s}), b = at::rand({s, s}), c = at::empty({s, s});
    rows.push_back({"add", fmt::format("[{},{}]", s, s), [a, b, c]() mutable { at::add_out(c, a, b); }});
  }
  for (const auto& r : rows) time_row(r, cores, turns, turn_ms, only);
  return 0;
}
