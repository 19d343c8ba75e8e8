// Times your own function with kbench's verified synchronization: it runs asynchronously on the cpu backend's
// stream, and kbench reports wall latency, throughput and device time, and checks that every wait waited.
#include <kbench/kbench.hpp>

#include <cstdio>
#include <vector>

int main() {
  const auto device = kbench::cpu::open_device();
  std::vector<float> x(1 << 22, 1.0f), y(1 << 22, 2.0f);
  kbench::bench_target target{
      .name = "saxpy",
      .call =
          [&] {
            return kbench::call_result{
                .events = {device->launch([&](const kbench::cpu::parallel_context& ctx) {
                  ctx.parallel_for(x.size(), 1 << 16, [&](std::size_t begin, std::size_t end) {
                    for (std::size_t i = begin; i < end; ++i) y[i] = 2.0f * x[i] + y[i];
                  });
                })}};
          },
      .barrier = [&] { device->barrier(); }};
  const kbench::measurement m = kbench::measure(target);
  std::printf("%s: wall %.3f ms | throughput %.3f ms | device %.3f ms | capture %zu/%zu | sync %s\n",
              m.name.c_str(), m.wall.median, m.throughput.median, m.device.median, m.calls_captured,
              m.calls_dispatched, m.valid() ? "verified" : "VIOLATED: invalid");
  return m.valid() ? 0 : 1;
}
