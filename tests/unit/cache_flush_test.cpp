// `kbench measure --flush-cache` flushes the caches of the device a kernel runs on (device::flush_caches),
// through the target of the bound kernel, before every wall-latency sample; the cpu device's flush first
// waits for the kernels already queued. Whether the flush evicts a cache is timing, shown in the closing
// notes and README (cpu add [256,256] with the flush: 18-20 us a call with a flush from the host's core
// alone, 27-33 us with every core's), not asserted here.

#include <kbench/backends/cpu.hpp>
#include <kbench/bench.hpp>
#include <kbench/host_cache.hpp>
#include <kbench/measure.hpp>
#include <kbench/suite/bound_kernel.hpp>

#include <gtest/gtest.h>
#include <pthread.h>
#include <sched.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>
#include <vector>

namespace kbench {
using namespace suite;  // the suite's kernel API, unqualified
namespace {

using namespace std::chrono_literals;

/// A cpu device that counts its flushes.
class counting_cpu_device final : public cpu::cpu_device {
 public:
  counting_cpu_device() : cpu_device(2) {}
  void flush_caches() override {
    ++flushes;
    cpu_device::flush_caches();
  }
  std::atomic<int> flushes{0};
};

/// y = x + 1 on the cpu backend, one shape of 1000 elements.
kernel_definition increment_kernel() {
  kernel_definition k;
  k.name = "increment";
  k.shapes = {shape{1000}};
  implementation impl;
  impl.backend = backend_kind::cpu;
  impl.bind = [](const kernel_args& args) -> launcher {
    auto device = std::dynamic_pointer_cast<cpu::cpu_device>(args.device);
    const auto n = static_cast<std::size_t>(element_count(args.shape));
    buffer_ptr input = args.inputs.at(0);
    buffer_ptr output = device->allocate(n * sizeof(float));
    return [device, input, output, n] {
      const float* x = cpu::float_data(input);
      float* y = cpu::float_data(output);
      event_ptr done = device->launch([=](const cpu::parallel_context&) {
        for (std::size_t i = 0; i < n; ++i) y[i] = x[i] + 1;
      });
      return call_result{{done}, {output}};
    };
  };
  k.implementations.push_back(impl);
  return k;
}

TEST(CacheFlush, MeasureFlushesTheKernelsOwnDeviceBeforeEveryWallLatencySample) {
  const kernel_definition kernel = increment_kernel();
  auto device = std::make_shared<counting_cpu_device>();
  const host_tensor x(kernel.shapes.front());
  const bound_kernel bound(kernel, kernel.implementations.front(), device, kernel.shapes.front(), {x}, {});
  measure_options options;
  options.repeat = 7;
  options.warmup = 1;
  options.throughput_batches = 1;
  options.flush_cache = false;
  (void)measure(bound.target(), options);
  EXPECT_EQ(device->flushes.load(), 0) << "no flush unless asked for";
  options.flush_cache = true;
  const measurement m = measure(bound.target(), options);
  EXPECT_EQ(device->flushes.load(), 7);
  EXPECT_EQ(m.wall_ms.size(), 7U);
}

TEST(CacheFlush, ACpuDevicesFlushWaitsForTheKernelsAlreadyQueued) {
  cpu::cpu_device device(2);
  event_ptr slow = device.launch([](const cpu::parallel_context&) { std::this_thread::sleep_for(30ms); });
  device.flush_caches();
  EXPECT_TRUE(slow->is_complete());
}

TEST(CacheFlush, FlushingTheHostsCachesLeavesTheCallersAffinityAsItWas) {
  // The flush binds a thread of its own to each cpu; the caller's mask must not change.
  std::thread caller([] {
    cpu_set_t before;
    CPU_ZERO(&before);
    ASSERT_EQ(pthread_getaffinity_np(pthread_self(), sizeof(before), &before), 0);
    flush_host_cache(std::size_t{1} << 20);
    cpu_set_t after;
    CPU_ZERO(&after);
    ASSERT_EQ(pthread_getaffinity_np(pthread_self(), sizeof(after), &after), 0);
    EXPECT_TRUE(CPU_EQUAL(&before, &after));
  });
  caller.join();
}

}  // namespace
}  // namespace kbench
