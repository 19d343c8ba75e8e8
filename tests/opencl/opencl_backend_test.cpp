// The opencl backend, for real on whatever platform is installed (PoCL on the CI machines): launches are
// asynchronous, waits and barriers really wait, profiling gives device time, builds report their log.
// Timing asserts are deliberately loose (0.3x to 3x): the machines are shared and noisy.

#include <kbench/backends/opencl.hpp>
#include <kbench/error.hpp>

#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

namespace {

using kbench::opencl::opencl_device;
using kbench::opencl::opencl_kernel;
using clock_type = std::chrono::steady_clock;

// One work-item runs a chain of `iterations` dependent multiply-adds: its duration grows linearly with the
// count, and the result is stored so that the compiler cannot drop the loop.
constexpr const char* spin_source = R"cl(
__kernel void spin(__global float* out, const long iterations) {
  float a = (float)get_global_id(0) + 1.0f;
  for (long i = 0; i < iterations; ++i) {
    a = a * 0.9999999f + 0.5f;
  }
  out[get_global_id(0)] = a;
}
)cl";

constexpr double target_ms = 200.0;  // [ms] duration of the calibrated spin kernel

double elapsed_ms(clock_type::time_point since) {
  return std::chrono::duration<double, std::milli>(clock_type::now() - since).count();
}

std::shared_ptr<opencl_device> shared_device() {
  static std::shared_ptr<opencl_device> device = kbench::opencl::open_device(0);
  return device;
}

class opencl_backend : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    s_device = shared_device();
    s_spin = std::make_unique<opencl_kernel>(s_device->build_program(spin_source).kernel("spin"));
    s_out = s_device->allocate(sizeof(float));
    s_spin->set_arg(0, s_out);
    calibrate();
  }
  static void TearDownTestSuite() {
    s_spin.reset();
    s_out.reset();
    s_device.reset();
  }

  /// Runs the spin kernel once and returns its host wall time around launch + wait [ms]. A wait that returns
  /// before the event is complete is recorded in s_calibration_error (and calibration stops there, rather
  /// than growing the kernel without bound).
  static double run_spin(std::int64_t iterations) {
    s_spin->set_arg_i64(1, iterations);
    const auto start = clock_type::now();
    kbench::event_ptr e = launch_spin();
    e->wait();
    const double ms = elapsed_ms(start);
    if (!e->is_complete()) {
      s_calibration_error = "event::wait() returned before the spin kernel completed";
      s_device->barrier();
    }
    return ms;
  }

  static kbench::event_ptr launch_spin() {
    const std::array<std::size_t, 1> one{1};
    return s_spin->launch(one, one);
  }

  /// Finds the iteration count that takes about target_ms (host wall clock, so not circular with the
  /// profiling timestamps that the tests check).
  static void calibrate() {
    std::int64_t iterations = 1 << 16;
    (void)run_spin(iterations);  // the first launch may compile the work-group function
    double ms = run_spin(iterations);
    while (s_calibration_error.empty() && ms < 20.0 && iterations < (std::int64_t{1} << 40)) {
      iterations *= 4;
      ms = run_spin(iterations);
    }
    if (!s_calibration_error.empty()) {
      return;
    }
    s_iterations = static_cast<std::int64_t>(static_cast<double>(iterations) * target_ms / ms);
    s_expected_ms = run_spin(s_iterations);
  }

  void SetUp() override { ASSERT_TRUE(s_calibration_error.empty()) << s_calibration_error; }

  static inline std::shared_ptr<opencl_device> s_device;
  static inline std::unique_ptr<opencl_kernel> s_spin;
  static inline kbench::buffer_ptr s_out;
  static inline std::int64_t s_iterations = 0;  // [iterations] for ~target_ms
  static inline double s_expected_ms = 0;       // [ms] host wall time of the calibrated run
  static inline std::string s_calibration_error;
};

TEST_F(opencl_backend, calibration_reaches_a_long_kernel) {
  EXPECT_GT(s_iterations, 0);
  EXPECT_GT(s_expected_ms, 0.3 * target_ms);
  EXPECT_LT(s_expected_ms, 3.0 * target_ms);
}

TEST_F(opencl_backend, launch_returns_before_the_kernel_finishes_and_wait_waits) {
  s_spin->set_arg_i64(1, s_iterations);
  const auto start = clock_type::now();
  kbench::event_ptr e = launch_spin();
  const double launch_ms = elapsed_ms(start);
  EXPECT_FALSE(e->is_complete()) << "launch took " << launch_ms << " ms for a ~" << s_expected_ms
                                 << " ms kernel: it did not return asynchronously";
  EXPECT_FALSE(e->interval().has_value()) << "an event has no interval until it is complete";
  e->wait();
  const double wall_ms = elapsed_ms(start);
  EXPECT_TRUE(e->is_complete());
  EXPECT_TRUE(e->interval().has_value());
  EXPECT_GT(wall_ms, 0.3 * s_expected_ms) << "wait() returned too early";
}

TEST_F(opencl_backend, device_time_matches_the_calibrated_duration) {
  s_spin->set_arg_i64(1, s_iterations);
  const auto start = clock_type::now();
  kbench::event_ptr e = launch_spin();
  e->wait();
  const double wall_ms = elapsed_ms(start);
  const std::optional<kbench::device_interval> interval = e->interval();
  ASSERT_TRUE(interval.has_value());
  EXPECT_LE(interval->start_ns, interval->end_ns);
  const double device_ms = interval->duration_ms();
  EXPECT_GT(device_ms, 0.3 * s_expected_ms) << "expected ~" << s_expected_ms << " ms";
  EXPECT_LT(device_ms, 3.0 * s_expected_ms) << "expected ~" << s_expected_ms << " ms";
  // The device worked inside the host's window around launch + wait (1 ms slack for clock granularity).
  EXPECT_LE(device_ms, wall_ms + 1.0);
}

TEST_F(opencl_backend, barrier_waits_for_all_enqueued_work) {
  constexpr int count = 3;
  std::vector<kbench::buffer_ptr> outputs;
  std::vector<opencl_kernel> kernels;
  std::vector<kbench::event_ptr> events;
  // Separate kernel objects: each keeps its own arguments, and together they run ~target_ms.
  for (int i = 0; i < count; ++i) {
    outputs.push_back(s_device->allocate(sizeof(float)));
    kernels.push_back(s_device->build_program(spin_source).kernel("spin"));
    kernels.back().set_arg(0, outputs.back());
    kernels.back().set_arg_i64(1, s_iterations / count);
  }
  const std::array<std::size_t, 1> one{1};
  for (opencl_kernel& k : kernels) {
    events.push_back(k.launch(one, one));
  }
  EXPECT_FALSE(events.back()->is_complete()) << "the last launch finished before the barrier was reached";
  s_device->barrier();
  for (int i = 0; i < count; ++i) {
    EXPECT_TRUE(events[i]->is_complete()) << "event " << i;
    ASSERT_TRUE(events[i]->interval().has_value()) << "event " << i;
  }
  // In-order queue: each execution starts after the previous one ended.
  for (int i = 1; i < count; ++i) {
    EXPECT_GE(events[i]->interval()->start_ns, events[i - 1]->interval()->end_ns) << "event " << i;
  }
}

TEST_F(opencl_backend, flush_caches_waits_for_queued_work_and_leaves_buffers_intact) {
  // `kbench measure --flush-cache` calls this between samples: the kernels queued before it must be done
  // when it returns, and its scratch fill must not touch the kernels' buffers. Whether it evicts a cache is
  // timing, shown in the README, not asserted here.
  std::vector<float> values(1000);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i) + 0.25f;
  kbench::buffer_ptr kept = s_device->allocate(values.size() * sizeof(float));
  kept->write(values.data(), values.size() * sizeof(float));
  s_spin->set_arg_i64(1, s_iterations / 4);
  kbench::event_ptr e = launch_spin();
  EXPECT_FALSE(e->is_complete()) << "the spin kernel finished before the flush was reached";
  s_device->flush_caches();
  EXPECT_TRUE(e->is_complete()) << "flush_caches returned with a kernel queued before it still running";
  s_device->flush_caches();  // the scratch buffer is made once and reused
  std::vector<float> back(values.size(), -1.0f);
  kept->read(back.data(), back.size() * sizeof(float));
  EXPECT_EQ(back, values);
}

TEST(opencl_backend_errors, build_failure_carries_the_build_log) {
  const auto device = shared_device();
  const char* broken = R"cl(
__kernel void broken(__global float* out) { out[0] = kbench_undeclared_identifier; }
)cl";
  try {
    (void)device->build_program(broken);
    FAIL() << "building a broken program did not throw";
  } catch (const kbench::error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("clBuildProgram"), std::string::npos) << message;
    EXPECT_NE(message.find("CL_BUILD_PROGRAM_FAILURE"), std::string::npos) << message;
    EXPECT_NE(message.find("kbench_undeclared_identifier"), std::string::npos) << message;
  }
}

TEST(opencl_backend_errors, failed_calls_name_the_call_and_the_error) {
  const auto device = shared_device();
  try {
    (void)device->allocate(0);
    FAIL() << "a zero-byte buffer was created";
  } catch (const kbench::error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("clCreateBuffer failed: CL_INVALID_BUFFER_SIZE (-61)"), std::string::npos)
        << message;
  }

  const auto program = device->build_program("__kernel void present(__global int* out) { out[0] = 1; }");
  try {
    (void)program.kernel("absent");
    FAIL() << "a kernel that does not exist was created";
  } catch (const kbench::error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("clCreateKernel failed: CL_INVALID_KERNEL_NAME"), std::string::npos) << message;
    EXPECT_NE(message.find("absent"), std::string::npos) << message;
  }

  opencl_kernel present = program.kernel("present");
  present.set_arg(0, device->allocate(64));
  // OpenCL 1.2: the global size must be a multiple of the work-group size.
  const std::array<std::size_t, 1> global{10};
  const std::array<std::size_t, 1> local{3};
  try {
    (void)present.launch(global, local);
    FAIL() << "a launch with a global size that is not a multiple of the local size was accepted";
  } catch (const kbench::error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("clEnqueueNDRangeKernel failed"), std::string::npos) << message;
  }
  EXPECT_THROW((void)present.launch({}), kbench::error);
  const std::array<std::size_t, 4> four{1, 1, 1, 1};
  EXPECT_THROW((void)present.launch(four), kbench::error);
  EXPECT_THROW((void)kbench::opencl::open_device(1000), kbench::error);
}

/// A buffer of no opencl device: binding it to a kernel must be refused.
class foreign_buffer : public kbench::buffer {
 public:
  [[nodiscard]] std::size_t size_bytes() const override { return 4; }
  void write(const void*, std::size_t) override {}
  void read(void*, std::size_t) const override {}
};

TEST(opencl_backend_errors, foreign_buffers_are_refused) {
  const auto device = shared_device();
  opencl_kernel k = device->build_program("__kernel void k(__global int* out) { out[0] = 1; }").kernel("k");
  EXPECT_THROW(k.set_arg(0, std::make_shared<foreign_buffer>()), kbench::error);
  EXPECT_THROW(k.set_arg(0, kbench::buffer_ptr{}), kbench::error);
}

TEST(opencl_backend_buffers, round_trip_through_the_device) {
  const auto device = shared_device();
  constexpr std::size_t n = 4099;  // not a multiple of anything convenient
  std::vector<float> values(n);
  for (std::size_t i = 0; i < n; ++i) {
    values[i] = static_cast<float>(i) * 0.5f - 17.25f;
  }
  kbench::buffer_ptr a = device->allocate(n * sizeof(float));
  EXPECT_EQ(a->size_bytes(), n * sizeof(float));
  a->write(values.data(), n * sizeof(float));
  std::vector<float> back(n, -1.0f);
  a->read(back.data(), n * sizeof(float));
  EXPECT_EQ(back, values);

  // Through a kernel: b = 2 * a, so the arguments reach the right buffers.
  opencl_kernel twice = device
                            ->build_program(R"cl(
__kernel void twice(__global const float* a, __global float* b, const int n) {
  const int i = (int)get_global_id(0);
  if (i < n) b[i] = 2.0f * a[i];
}
)cl")
                            .kernel("twice");
  kbench::buffer_ptr b = device->allocate(n * sizeof(float));
  twice.set_arg(0, a);
  twice.set_arg(1, b);
  twice.set_arg_i32(2, static_cast<std::int32_t>(n));
  const std::array<std::size_t, 1> global{n};
  kbench::event_ptr e = twice.launch(global);
  e->wait();
  b->read(back.data(), n * sizeof(float));
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(back[i], 2.0f * values[i]) << "element " << i;
  }

  std::vector<float> too_many(n + 1);
  EXPECT_THROW(a->write(too_many.data(), too_many.size() * sizeof(float)), kbench::error);
  EXPECT_THROW(a->read(too_many.data(), too_many.size() * sizeof(float)), kbench::error);
}

TEST(opencl_backend_buffers, fill_sets_every_byte_after_the_work_before_it) {
  const auto device = shared_device();
  constexpr std::size_t bytes = 4099;  // not a multiple of a vector
  kbench::buffer_ptr a = device->allocate(bytes);
  // A kernel enqueued before the fill writes 7 everywhere; the fill, after it in the queue, must win.
  opencl_kernel sevens =
      device->build_program("__kernel void sevens(__global uchar* a) { a[get_global_id(0)] = 7; }")
          .kernel("sevens");
  sevens.set_arg(0, a);
  const std::array<std::size_t, 1> global{bytes};
  kbench::event_ptr e = sevens.launch(global);
  a->fill(std::byte{0xAB});
  EXPECT_TRUE(e->is_complete()) << "fill is blocking, after the kernel before it";
  std::vector<unsigned char> back(bytes, 0);
  a->read(back.data(), bytes);
  EXPECT_EQ(back, std::vector<unsigned char>(bytes, 0xAB));
}

TEST(opencl_backend_devices, list_devices_finds_this_machines_device) {
  std::string reason;
  const std::vector<kbench::device_info> devices = kbench::opencl::list_devices(&reason);
  ASSERT_FALSE(devices.empty()) << reason;
  for (const kbench::device_info& info : devices) {
    EXPECT_EQ(info.backend, kbench::backend_kind::opencl);
    EXPECT_FALSE(info.name.empty());
    EXPECT_FALSE(info.platform.empty());
    EXPECT_FALSE(info.driver_version.empty());
    EXPECT_GT(info.max_work_group_size, 0U);
    EXPECT_GT(info.global_memory_bytes, 0U);
    EXPECT_GT(info.compute_units, 0U);
  }
  const auto device = shared_device();
  EXPECT_EQ(device->info().name, devices.front().name);
  EXPECT_EQ(device->info().driver_version, devices.front().driver_version);
}

TEST(opencl_backend_devices, no_platform_gives_an_empty_list_and_a_reason) {
  // The ICD loader reads its vendor list once per process: run the check in a fresh child process whose
  // loader finds no vendor file (OCL_ICD_VENDORS is honoured by both ocl-icd and the Khronos loader).
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const char* saved = std::getenv("OCL_ICD_VENDORS");
  const std::string previous = saved != nullptr ? saved : "";
  ::setenv("OCL_ICD_VENDORS", "/nonexistent/kbench-no-vendors", 1);
  EXPECT_EXIT(
      {
        std::string reason;
        const std::vector<kbench::device_info> devices = kbench::opencl::list_devices(&reason);
        std::fprintf(stderr, "%zu device(s); reason: %s\n", devices.size(), reason.c_str());
        std::exit(devices.empty() ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "0 device\\(s\\); reason: no OpenCL platform found \\(clGetPlatformIDs");
  if (saved != nullptr) {
    ::setenv("OCL_ICD_VENDORS", previous.c_str(), 1);
  } else {
    ::unsetenv("OCL_ICD_VENDORS");
  }
}

TEST(opencl_backend_programs, defines_and_extra_options_reach_the_program) {
  const auto device = shared_device();
  const char* source = R"cl(
__kernel void values(__global long* out) {
  out[0] = VALUE;
  out[1] = OTHER;
}
)cl";
  kbench::buffer_ptr out = device->allocate(2 * sizeof(std::int64_t));
  for (const std::int64_t value : {std::int64_t{1234}, std::int64_t{-5000000000}}) {
    opencl_kernel k = device->build_program(source, {{"VALUE", value}}, "-DOTHER=77").kernel("values");
    k.set_arg(0, out);
    const std::array<std::size_t, 1> one{1};
    k.launch(one)->wait();
    std::array<std::int64_t, 2> got{};
    out->read(got.data(), sizeof(got));
    EXPECT_EQ(got[0], value);
    EXPECT_EQ(got[1], 77);
  }
  // Without the define the program does not compile: the options are the only source of VALUE.
  EXPECT_THROW((void)device->build_program(source, {}, "-DOTHER=1"), kbench::error);
}

}  // namespace
