// cpu_kernel, the callable the cpu stream queues: closures inline or on the heap, moves, and that every
// closure is destroyed exactly once.

#include <kbench/backends/cpu.hpp>

#include "backends/cpu/thread_pool.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

namespace kbench::cpu {
namespace {

// Counts live copies, so that a test can see each closure destroyed once.
struct tracked {
  explicit tracked(int* counter) : live(counter) { ++*live; }
  tracked(const tracked& other) : live(other.live) { ++*live; }
  tracked(tracked&& other) noexcept : live(other.live) { ++*live; }
  tracked& operator=(const tracked&) = delete;
  tracked& operator=(tracked&&) = delete;
  ~tracked() { --*live; }
  int* live;
};

// A closure of `Bytes` bytes of payload that adds its payload's sum to *out when called.
template <std::size_t Bytes>
cpu_kernel summing_kernel(int* live, long* out) {
  std::array<unsigned char, Bytes> payload{};
  for (std::size_t i = 0; i < Bytes; ++i) payload[i] = static_cast<unsigned char>(i % 7);
  return [payload, token = tracked(live), out](const parallel_context&) {
    for (unsigned char b : payload) *out += b;
  };
}

long expected_sum(std::size_t bytes) {
  long sum = 0;
  for (std::size_t i = 0; i < bytes; ++i) sum += static_cast<long>(i % 7);
  return sum;
}

TEST(CpuKernel, SmallAndLargeClosuresRunMoveAndAreDestroyedOnce) {
  thread_pool pool(1);
  const parallel_context context(pool);
  int live = 0;
  long out = 0;
  {
    cpu_kernel small = summing_kernel<16>(&live, &out);   // inline
    cpu_kernel large = summing_kernel<512>(&live, &out);  // on the heap
    EXPECT_EQ(live, 2);
    ASSERT_TRUE(small);
    ASSERT_TRUE(large);
    small(context);
    EXPECT_EQ(out, expected_sum(16));
    cpu_kernel moved_small = std::move(small);
    cpu_kernel moved_large = std::move(large);
    EXPECT_FALSE(small);  // NOLINT(bugprone-use-after-move): a moved-from kernel is empty
    EXPECT_FALSE(large);  // NOLINT(bugprone-use-after-move)
    EXPECT_EQ(live, 2);
    out = 0;
    moved_small(context);
    moved_large(context);
    EXPECT_EQ(out, expected_sum(16) + expected_sum(512));
    moved_small = std::move(moved_large);  // destroys the small closure, takes the large one
    EXPECT_EQ(live, 1);
    moved_small = nullptr;
    EXPECT_EQ(live, 0);
    EXPECT_FALSE(moved_small);
  }
  EXPECT_EQ(live, 0);
}

TEST(CpuKernel, AnEmptyKernelIsFalseAndMovesAsEmpty) {
  cpu_kernel empty;
  EXPECT_FALSE(empty);
  cpu_kernel also_empty = std::move(empty);
  EXPECT_FALSE(also_empty);
  cpu_kernel from_null = nullptr;
  EXPECT_FALSE(from_null);
}

// Through the device: closures of both kinds run once each, in launch order, and the stream releases them
// (the captured shared_ptr's count drops back) before their events complete.
TEST(CpuKernel, TheStreamRunsAndReleasesInlineAndHeapClosures) {
  cpu_device device(2);
  auto shared = std::make_shared<int>(0);
  std::array<unsigned char, 256> big{};
  std::vector<int> order;
  std::vector<event_ptr> events;
  for (int i = 0; i < 200; ++i) {
    if (i % 2 == 0) {
      events.push_back(device.launch([shared, &order, i](const parallel_context&) { order.push_back(i); }));
    } else {
      events.push_back(
          device.launch([shared, big, &order, i](const parallel_context&) { order.push_back(i + big[0]); }));
    }
  }
  for (const auto& e : events) e->wait();
  device.barrier();
  ASSERT_EQ(order.size(), 200U);
  for (int i = 0; i < 200; ++i) EXPECT_EQ(order[static_cast<std::size_t>(i)], i);
  EXPECT_EQ(shared.use_count(), 1);
}

}  // namespace
}  // namespace kbench::cpu
