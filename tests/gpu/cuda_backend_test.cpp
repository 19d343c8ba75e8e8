// The cuda backend for real. Every test that needs a GPU skips with the reason when none is found; the last
// test checks the opposite: without a GPU, discovery reports empty with a reason instead of failing.

#include <kbench/backends/cuda.hpp>
#include <kbench/error.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <memory>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

namespace {

using namespace std::chrono_literals;
using kbench::cuda::cuda_device;

// Spins one thread on the GPU's global timer (nanoseconds) for `ns` nanoseconds: a kernel of known duration
// that does not depend on the SM clock. Writes the elapsed time so the work cannot be optimized away.
constexpr const char* k_spin_source = R"(
extern "C" __global__ void spin(long long ns, long long* elapsed) {
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while ((long long)(now - start) < ns);
  if (elapsed) *elapsed = (long long)(now - start);
}
)";

// y[i] = a * i + b + OFFSET, with OFFSET a build define: checks scalar arguments and defines together.
constexpr const char* k_affine_source = R"(
#ifndef OFFSET
#error "OFFSET must be defined"
#endif
extern "C" __global__ void affine(float* y, int n, float a, long long b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * (float)i + (float)b + (float)OFFSET;
}
)";

// Opens device 0, or returns nullptr and fills `reason` when there is none.
std::shared_ptr<cuda_device> open_or_reason(std::string& reason) {
  if (kbench::cuda::list_devices(&reason).empty()) return nullptr;
  return kbench::cuda::open_device(0);
}

#define KBENCH_OPEN_GPU_OR_SKIP(dev)                                    \
  std::string skip_reason;                                              \
  const std::shared_ptr<cuda_device> dev = open_or_reason(skip_reason); \
  if (!dev) GTEST_SKIP() << "no CUDA GPU: " << skip_reason

constexpr std::int64_t k_spin_ns = 100'000'000;  // 100 ms: far longer than any launch or query overhead

TEST(CudaBackend, DescribesTheDevice) {
  KBENCH_OPEN_GPU_OR_SKIP(dev);
  const kbench::device_info& info = dev->info();
  EXPECT_EQ(info.backend, kbench::backend_kind::cuda);
  EXPECT_FALSE(info.name.empty());
  EXPECT_EQ(info.vendor, "NVIDIA Corporation");
  EXPECT_EQ(info.platform, "CUDA");
  EXPECT_FALSE(info.driver_version.empty());
  EXPECT_GE(info.max_work_group_size, 256u);
  EXPECT_GT(info.global_memory_bytes, 0u);
  EXPECT_GT(info.compute_units, 0u);
}

// NVML comes with the driver: a GPU machine reads the SM clock and the throttle reasons (device_clocks.hpp).
TEST(CudaBackend, ReadsItsClocksThroughNvml) {
  KBENCH_OPEN_GPU_OR_SKIP(dev);
  const kbench::device_clocks clocks = dev->clocks();
  ASSERT_TRUE(clocks.measured) << clocks.detail;
  EXPECT_GT(clocks.sm_mhz, 0u) << clocks.detail;
  EXPECT_GE(clocks.max_sm_mhz, clocks.sm_mhz) << clocks.detail;
  EXPECT_EQ(clocks.detail.rfind("SM ", 0), 0u) << clocks.detail;
  std::printf("[ clocks ] %s\n", clocks.detail.c_str());
}

TEST(CudaBackend, LaunchReturnsBeforeTheKernelFinishesAndWaitWaits) {
  KBENCH_OPEN_GPU_OR_SKIP(dev);
  kbench::cuda::cuda_function spin = dev->build_module(k_spin_source).function("spin");
  kbench::buffer_ptr elapsed = dev->allocate(sizeof(std::int64_t));
  spin.set_arg_i64(0, k_spin_ns);
  spin.set_arg(1, elapsed);
  // Warm-up: the first launch of a module pays for loading it.
  {
    spin.set_arg_i64(0, 1000);
    kbench::event_ptr e = spin.launch({1, 1, 1}, {1, 1, 1});
    e->wait();
    spin.set_arg_i64(0, k_spin_ns);
  }

  const auto t0 = std::chrono::steady_clock::now();
  kbench::event_ptr e = spin.launch({1, 1, 1}, {1, 1, 1});
  const auto launch_time = std::chrono::steady_clock::now() - t0;
  EXPECT_FALSE(e->is_complete()) << "the launch waited for the kernel";
  EXPECT_LT(launch_time, 50ms);
  EXPECT_FALSE(e->interval().has_value()) << "timestamps before completion";

  e->wait();
  const auto wait_time = std::chrono::steady_clock::now() - t0;
  EXPECT_TRUE(e->is_complete()) << "wait() returned before the kernel finished";
  EXPECT_GE(wait_time, 90ms);

  const std::optional<kbench::device_interval> iv = e->interval();
  ASSERT_TRUE(iv.has_value());
  const double ms = iv->duration_ms();
  EXPECT_GE(ms, 0.5 * 1e-6 * static_cast<double>(k_spin_ns));
  EXPECT_LE(ms, 3.0 * 1e-6 * static_cast<double>(k_spin_ns));
  EXPECT_GE(iv->start_ns, 0) << "timestamps are relative to the reference recorded at open";

  std::int64_t spun_ns = 0;
  elapsed->read(&spun_ns, sizeof(spun_ns));
  EXPECT_GE(spun_ns, k_spin_ns);
}

TEST(CudaBackend, BarrierWaitsForEveryLaunch) {
  KBENCH_OPEN_GPU_OR_SKIP(dev);
  kbench::cuda::cuda_function spin = dev->build_module(k_spin_source).function("spin");
  kbench::buffer_ptr elapsed = dev->allocate(sizeof(std::int64_t));
  spin.set_arg_i64(0, k_spin_ns / 4);  // 4 x 25 ms, in order on the device's stream
  spin.set_arg(1, elapsed);
  std::vector<kbench::event_ptr> events;
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < 4; ++i) events.push_back(spin.launch({1, 1, 1}, {1, 1, 1}));
  EXPECT_FALSE(events.back()->is_complete());
  dev->barrier();
  EXPECT_GE(std::chrono::steady_clock::now() - t0, 90ms);
  std::int64_t previous_end = 0;
  for (const auto& e : events) {
    ASSERT_TRUE(e->is_complete()) << "barrier() returned with work still running";
    const auto iv = e->interval();
    ASSERT_TRUE(iv.has_value());
    EXPECT_GE(iv->start_ns, previous_end - 1000) << "launches on one stream run in order";  // 1 us slack
    previous_end = iv->end_ns;
  }
}

TEST(CudaBackend, FlushCachesWaitsForQueuedWorkAndLeavesBuffersIntact) {
  KBENCH_OPEN_GPU_OR_SKIP(dev);
  // `kbench measure --flush-cache` calls this between samples (a memset of twice the L2 on the stream).
  std::vector<float> values(1000);
  std::iota(values.begin(), values.end(), 0.25f);
  kbench::buffer_ptr kept = dev->allocate(values.size() * sizeof(float));
  kept->write(values.data(), values.size() * sizeof(float));
  kbench::cuda::cuda_function spin = dev->build_module(k_spin_source).function("spin");
  kbench::buffer_ptr elapsed = dev->allocate(sizeof(std::int64_t));
  spin.set_arg_i64(0, k_spin_ns / 4);
  spin.set_arg(1, elapsed);
  kbench::event_ptr e = spin.launch({1, 1, 1}, {1, 1, 1});
  EXPECT_FALSE(e->is_complete());
  dev->flush_caches();
  EXPECT_TRUE(e->is_complete()) << "flush_caches returned with a kernel queued before it still running";
  dev->flush_caches();  // the scratch buffer is made once and reused
  std::vector<float> back(values.size(), -1.0f);
  kept->read(back.data(), back.size() * sizeof(float));
  EXPECT_EQ(back, values);
}

TEST(CudaBackend, BuildFailureCarriesTheNvrtcLog) {
  KBENCH_OPEN_GPU_OR_SKIP(dev);
  const char* broken = R"(extern "C" __global__ void broken(float* y) { y[0] = kbench_undeclared_name; })";
  try {
    (void)dev->build_module(broken);
    FAIL() << "a broken source built";
  } catch (const kbench::error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("kbench_undeclared_name"), std::string::npos) << message;
    EXPECT_NE(message.find("NVRTC"), std::string::npos) << message;
  }
}

TEST(CudaBackend, UnknownFunctionIsAnError) {
  KBENCH_OPEN_GPU_OR_SKIP(dev);
  cuda_device& d = *dev;
  const kbench::cuda::cuda_module module = d.build_module(k_spin_source);
  EXPECT_THROW((void)module.function("no_such_kernel"), kbench::error);
}

TEST(CudaBackend, BuffersRoundTrip) {
  KBENCH_OPEN_GPU_OR_SKIP(dev);
  std::vector<float> host(1 << 20);
  std::iota(host.begin(), host.end(), -1000.0f);
  kbench::buffer_ptr b = dev->allocate(host.size() * sizeof(float));
  EXPECT_EQ(b->size_bytes(), host.size() * sizeof(float));
  b->write(host.data(), host.size() * sizeof(float));
  std::vector<float> back(host.size(), 0.0f);
  b->read(back.data(), back.size() * sizeof(float));
  EXPECT_EQ(back, host);
  EXPECT_THROW(b->write(host.data(), b->size_bytes() + 1), kbench::error);
}

TEST(CudaBackend, DefinesAndScalarArgumentsReachTheKernel) {
  KBENCH_OPEN_GPU_OR_SKIP(dev);
  constexpr int n = 1000;
  kbench::cuda::cuda_function affine =
      dev->build_module(k_affine_source, {{"OFFSET", 42}}).function("affine");
  kbench::buffer_ptr y = dev->allocate(n * sizeof(float));
  affine.set_arg(0, y);
  affine.set_arg_i32(1, n);
  affine.set_arg_f32(2, 2.0f);
  affine.set_arg_i64(3, -7);
  affine.launch({(n + 127) / 128, 1, 1}, {128, 1, 1})->wait();
  std::vector<float> got(n);
  y->read(got.data(), got.size() * sizeof(float));
  for (int i = 0; i < n; ++i) ASSERT_FLOAT_EQ(got[i], 2.0f * static_cast<float>(i) - 7.0f + 42.0f) << i;

  // Without the define the source refuses to build, so the define above did reach it.
  EXPECT_THROW((void)dev->build_module(k_affine_source), kbench::error);
}

TEST(CudaBackend, UnsetArgumentIsAnError) {
  KBENCH_OPEN_GPU_OR_SKIP(dev);
  kbench::cuda::cuda_function affine = dev->build_module(k_affine_source, {{"OFFSET", 0}}).function("affine");
  affine.set_arg_f32(2, 1.0f);  // 0 and 1 never set
  EXPECT_THROW((void)affine.launch({1, 1, 1}, {1, 1, 1}), kbench::error);
}

TEST(CudaBackend, WithoutAGpuDiscoveryIsEmptyWithAReason) {
  std::string reason;
  const std::vector<kbench::device_info> devices = kbench::cuda::list_devices(&reason);
  if (!devices.empty()) GTEST_SKIP() << "a CUDA GPU is present (" << devices.front().name << ")";
  EXPECT_FALSE(reason.empty()) << "list_devices() found nothing but gave no reason";
  EXPECT_THROW((void)kbench::cuda::open_device(0), kbench::error);
  // Asking again gives the same answer (the driver is probed once per process).
  std::string again;
  EXPECT_TRUE(kbench::cuda::list_devices(&again).empty());
  EXPECT_EQ(again, reason);
  std::cout << "[ INFO     ] cuda unavailable: " << reason << "\n";
}

}  // namespace
