// Measures kbench's own measurement: spin kernels of known duration T on the cpu and opencl backends, timed
// with the three measures, and the harness overhead per sample with an empty call. Usage: harness_accuracy
// [--quick]     (prints tables; nothing is asserted: machines are noisy)

#include <kbench/backends/cpu.hpp>
#include <kbench/build_config.hpp>
#include <kbench/measure.hpp>
#include <kbench/sync.hpp>
#if KBENCH_HAS_OPENCL
#include <kbench/backends/opencl.hpp>
#endif

#include <fmt/format.h>

#include <chrono>
#include <cstring>
#include <vector>

namespace {

using kbench::bench_target;
using kbench::call_result;

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void print_row(const std::string& backend, double t_ms, const kbench::measurement& m) {
  fmt::print("{:<8} | {:>9.3f} | {:>14.4f} | {:>15.4f} | {:>14.4f} | {:>9.3f} | {:>8.3f} | {:>7} | {}\n",
             backend, t_ms, m.wall.median, m.throughput.median, m.device.median, m.wall.median / t_ms,
             m.device.median / t_ms, fmt::format("{}/{}", m.calls_captured, m.calls_dispatched),
             m.valid() ? "ok" : "INVALID");
}

kbench::measure_options options_for(double t_ms, bool quick) {
  kbench::measure_options o;
  o.target_ms = quick ? 50 : 300;
  o.repeat = t_ms >= 10 ? (quick ? 10 : 30) : 0;  // compute_repeat fills target_ms for the short ones
  o.throughput_batches = 3;
  return o;
}

#if KBENCH_HAS_OPENCL
constexpr const char* spin_source = R"(
__kernel void spin(__global float* out, int iterations) {
  float x = out[0];
  for (int i = 0; i < iterations; ++i) x = x * 0.9999999f + 1e-7f;  // a dependent chain: no shortcut
  out[0] = x;
}
)";
#endif

}  // namespace

int main(int argc, char** argv) {
  const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  const std::vector<double> durations_ms{0.01, 0.1, 1.0, 10.0};

  fmt::print("kbench harness accuracy: spin kernels of known duration T\n");
  fmt::print("{:<8} | {:>9} | {:>14} | {:>15} | {:>14} | {:>9} | {:>8} | {:>7} | {}\n", "backend", "T (ms)",
             "wall med (ms)", "thru med (ms)", "device med (ms)", "wall / T", "dev / T", "capture", "sync");

  // cpu: the kernel busy-waits on the worker's steady clock until T has passed, so T is known exactly.
  auto cpu = kbench::cpu::open_device();
  for (double t_ms : durations_ms) {
    const auto t_ns = static_cast<std::int64_t>(t_ms * 1e6);
    bench_target target{"spin/cpu",
                        [&] {
                          return call_result{{cpu->launch([t_ns](const kbench::cpu::parallel_context&) {
                                               const std::int64_t end = now_ns() + t_ns;
                                               while (now_ns() < end) {
                                               }
                                             })},
                                             {}};
                        },
                        [&] { cpu->barrier(); },
                        {}};
    print_row("cpu", t_ms, kbench::measure(target, options_for(t_ms, quick)));
  }

#if KBENCH_HAS_OPENCL
  std::string reason;
  if (kbench::opencl::list_devices(&reason).empty()) {
    fmt::print("opencl   | skipped: {}\n", reason);
  } else {
    // opencl: OpenCL C has no clock, so T is set by iterations calibrated from the device's own timestamps
    // (a 200 ms run); the check is then that wall, throughput and device time agree with that calibration.
    auto cl = kbench::opencl::open_device();
    auto out = cl->allocate(sizeof(float));
    const float one = 1.0f;
    out->write(&one, sizeof(one));
    auto kernel = cl->build_program(spin_source).kernel("spin");
    kernel.set_arg(0, out);
    const std::size_t global[1] = {1};
    auto run_once = [&](std::int32_t iterations) {
      kernel.set_arg_i32(1, iterations);
      auto e = kernel.launch(global);
      e->wait();
      return e->interval()->duration_ms();
    };
    std::int32_t probe = 1000000;
    double probe_ms = run_once(probe);
    while (probe_ms < 100 && probe < (1 << 29)) {
      probe *= 4;
      probe_ms = run_once(probe);
    }
    const double iterations_per_ms = probe / probe_ms;
    fmt::print("opencl calibration: {:.0f} iterations per ms ({} iterations in {:.2f} ms)\n",
               iterations_per_ms, probe, probe_ms);
    for (double t_ms : durations_ms) {
      const auto iterations = static_cast<std::int32_t>(std::max(1.0, t_ms * iterations_per_ms));
      bench_target target{"spin/opencl",
                          [&, iterations] {
                            kernel.set_arg_i32(1, iterations);
                            return call_result{{kernel.launch(global)}, {out}};
                          },
                          [&] { cl->barrier(); },
                          {}};
      print_row("opencl", t_ms, kbench::measure(target, options_for(t_ms, quick)));
    }
  }
#endif

  // Harness overhead: an empty call that returns a completed event, and an empty kernel on each backend.
  fmt::print("\nharness overhead per sample (median wall latency of an empty call)\n");
  bench_target empty{"empty",
                     [] {
                       return call_result{{kbench::make_completed_event({0, 0})}, {}};
                     },
                     [] {},
                     {}};
  kbench::measure_options o;
  o.repeat = 10000;
  auto m = kbench::measure(empty, o);
  fmt::print(
      "  empty host call      : {:.3f} us median, {:.3f} us third quartile, throughput {:.3f} us/call\n",
      m.wall.median * 1e3, m.wall.q3 * 1e3, m.throughput.median * 1e3);
  bench_target empty_cpu{"empty/cpu",
                         [&] {
                           return call_result{{cpu->launch([](const kbench::cpu::parallel_context&) {})}, {}};
                         },
                         [&] { cpu->barrier(); },
                         {}};
  o.repeat = 2000;
  m = kbench::measure(empty_cpu, o);
  fmt::print("  empty cpu kernel     : {:.3f} us wall, {:.3f} us device, {:.3f} us/call throughput\n",
             m.wall.median * 1e3, m.device.median * 1e3, m.throughput.median * 1e3);
  // A kernel whose parallel loop gives each worker an empty chunk: the device time is the pool's own cost
  // of handing out and collecting the chunks (thread_pool.hpp).
  const unsigned workers = cpu->info().compute_units;
  bench_target empty_loop{"empty-loop/cpu",
                          [&] {
                            return call_result{
                                {cpu->launch([workers](const kbench::cpu::parallel_context& ctx) {
                                  ctx.parallel_for(workers, 1, [](std::size_t, std::size_t) {});
                                })},
                                {}};
                          },
                          [&] { cpu->barrier(); },
                          {}};
  m = kbench::measure(empty_loop, o);
  fmt::print("  empty cpu loop ({} chunks): {:.3f} us wall, {:.3f} us device, {:.3f} us/call throughput\n",
             workers, m.wall.median * 1e3, m.device.median * 1e3, m.throughput.median * 1e3);
  return 0;
}
