// The cpu backend: an asynchronous in-order stream over a thread pool. Run under the thread sanitizer in CI.

#include <kbench/backends/cpu.hpp>
#include <kbench/error.hpp>

#include "backends/cpu/thread_pool.hpp"

#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <numeric>
#include <set>
#include <thread>
#include <vector>

namespace kbench::cpu {
namespace {

using namespace std::chrono_literals;

TEST(CpuBackend, LaunchReturnsBeforeTheKernelFinishesAndWaitWaitsForIt) {
  cpu_device device(2);
  std::atomic<bool> release{false};
  // The kernel cannot finish before the test releases it, so "returns before it finishes" is certain.
  event_ptr e = device.launch([&](const parallel_context&) {
    while (!release.load()) std::this_thread::sleep_for(1ms);
  });
  EXPECT_FALSE(e->is_complete());
  EXPECT_FALSE(e->interval().has_value());
  release = true;
  e->wait();
  EXPECT_TRUE(e->is_complete());
  EXPECT_TRUE(e->interval().has_value());
}

TEST(CpuBackend, DeviceTimeCoversAKernelOfKnownDuration) {
  cpu_device device(2);
  constexpr auto known = 50ms;
  event_ptr e = device.launch([&](const parallel_context&) { std::this_thread::sleep_for(known); });
  e->wait();
  const auto interval = e->interval();
  ASSERT_TRUE(interval.has_value());
  // sleep_for sleeps at least `known`; the upper bound is loose on purpose (a loaded machine).
  EXPECT_GE(interval->duration_ms(), 50.0);
  EXPECT_LT(interval->duration_ms(), 50.0 * 20);
}

TEST(CpuBackend, KernelsRunInLaunchOrderAndBarrierWaitsForAll) {
  cpu_device device(2);
  std::mutex m;
  std::vector<int> order;
  std::vector<event_ptr> events;
  for (int i = 0; i < 20; ++i) {
    events.push_back(device.launch([&, i](const parallel_context&) {
      std::this_thread::sleep_for(200us);
      std::lock_guard lock(m);
      order.push_back(i);
    }));
  }
  device.barrier();
  for (const auto& e : events) EXPECT_TRUE(e->is_complete());
  std::vector<int> expected(20);
  std::iota(expected.begin(), expected.end(), 0);
  std::lock_guard lock(m);
  EXPECT_EQ(order, expected);
}

TEST(CpuBackend, ABarrierAfterMoreShortKernelsThanTheQueueHoldsWaitsForAll) {
  // Kernels of ~1 us, more than the queue's capacity: the launches wait for slots, and the barrier finds a
  // full queue that takes longer than one poll budget to run, which it waits out by polling while launches
  // keep finishing (cpu_stream::wait_until_finished).
  cpu_device device(2);
  std::atomic<int> ran{0};
  std::vector<event_ptr> events;
  constexpr int launches = 3000;
  for (int i = 0; i < launches; ++i) {
    events.push_back(device.launch([&ran, i](const parallel_context&) {
      const auto until = std::chrono::steady_clock::now() + 1us;
      while (std::chrono::steady_clock::now() < until) {
      }
      EXPECT_EQ(ran.fetch_add(1), i) << "launch order";
    }));
  }
  device.barrier();
  EXPECT_EQ(ran.load(), launches);
  for (const auto& e : events) ASSERT_TRUE(e->is_complete());
}

TEST(CpuBackend, HostsLaunchingFromSeveralThreadsGetEachKernelRunOnceInTheirOrder) {
  // 4 host threads, 1000 launches each: more than the queue holds, so the hosts reuse slots, each after
  // making sure (under the launch mutex, from what any host saw finished) that the slot's last kernel ran.
  cpu_device device(2);
  constexpr int hosts = 4;
  constexpr int launches_per_host = 1000;
  std::array<std::vector<int>, hosts> ran;  // written by the dispatcher only, read after the barrier
  std::array<std::vector<event_ptr>, hosts> events;
  std::vector<std::thread> threads;
  for (int h = 0; h < hosts; ++h) {
    threads.emplace_back([&, h] {
      for (int i = 0; i < launches_per_host; ++i) {
        events[h].push_back(device.launch([&ran, h, i](const parallel_context&) {
          const auto until =
              std::chrono::steady_clock::now() + 2us;  // slower than launching: the queue fills
          while (std::chrono::steady_clock::now() < until) {
          }
          ran[h].push_back(i);
        }));
      }
    });
  }
  for (auto& t : threads) t.join();
  device.barrier();
  std::vector<int> expected(launches_per_host);
  std::iota(expected.begin(), expected.end(), 0);
  for (int h = 0; h < hosts; ++h) {
    EXPECT_EQ(ran[h], expected) << "host " << h;
    for (const auto& e : events[h]) ASSERT_TRUE(e->is_complete());
  }
}

TEST(CpuBackend, AKernelThatThrowsCompletesWithoutTimestampsAndBarrierRethrows) {
  cpu_device device(2);
  event_ptr bad = device.launch([](const parallel_context&) { throw std::runtime_error("kernel fault"); });
  event_ptr good = device.launch([](const parallel_context&) {});
  EXPECT_THROW(device.barrier(), std::runtime_error);
  EXPECT_TRUE(bad->is_complete());
  EXPECT_FALSE(bad->interval().has_value());
  EXPECT_TRUE(good->interval().has_value());
  EXPECT_NO_THROW(device.barrier());  // the error is reported once
}

TEST(ThreadPool, ParallelForVisitsEveryIndexExactlyOnce) {
  thread_pool pool(3);
  for (std::size_t n : {0UL, 1UL, 7UL, 1000UL, 100003UL}) {
    for (std::size_t grain : {1UL, 64UL, 1000000UL}) {
      std::vector<std::atomic<int>> visits(n);
      pool.parallel_for(n, grain, [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) visits[i].fetch_add(1);
      });
      for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(visits[i].load(), 1) << "n=" << n << " grain=" << grain;
    }
  }
}

TEST(ThreadPool, UsesSeveralThreadsAndRethrowsAChunksException) {
  thread_pool pool(2);
  std::mutex m;
  std::vector<std::thread::id> ids;
  pool.parallel_for(2, 1, [&](std::size_t, std::size_t) {
    std::this_thread::sleep_for(20ms);
    std::lock_guard lock(m);
    ids.push_back(std::this_thread::get_id());
  });
  EXPECT_EQ(ids.size(), 2U);
  EXPECT_THROW(pool.parallel_for(100, 1,
                                 [](std::size_t begin, std::size_t) {
                                   if (begin > 0) throw std::runtime_error("chunk fault");
                                 }),
               std::runtime_error);
  int sum = 0;
  pool.parallel_for(1, 1, [&](std::size_t, std::size_t) { sum = 1; });  // the pool still works
  EXPECT_EQ(sum, 1);
}

TEST(CpuBackend, ParallelContextSplitsLoopsOverTheWorkers) {
  cpu_device device(2);
  std::vector<float> out(10000, 0.0f);
  event_ptr e = device.launch([&](const parallel_context& ctx) {
    EXPECT_EQ(ctx.workers(), 2U);
    ctx.parallel_for(out.size(), 100, [&](std::size_t b, std::size_t end) {
      for (std::size_t i = b; i < end; ++i) out[i] = static_cast<float>(i);
    });
  });
  e->wait();
  for (std::size_t i = 0; i < out.size(); ++i) ASSERT_EQ(out[i], static_cast<float>(i));
}

// A loop body that records, per index, the address of the body object that ran it (the pool's copy, or
// the caller's object) and counts the visits. `Padding` makes it larger than the pool copies.
template <std::size_t Padding>
struct recording_body {
  std::atomic<int>* visits;
  const void** ran_from;
  std::array<char, Padding> padding{};
  void operator()(std::size_t begin, std::size_t end) const {
    for (std::size_t i = begin; i < end; ++i) {
      visits[i].fetch_add(1);
      ran_from[i] = this;
    }
  }
};

TEST(CpuBackend, ParallelForCopyRunsThePoolsCopyOfASmallBodyAndTheCallersOfAnyOther) {
  cpu_device device(3);
  constexpr std::size_t n = 3000;
  const auto run = [&](const auto& body, std::vector<std::atomic<int>>& visits) {
    device.launch([&](const parallel_context& ctx) { ctx.parallel_for_copy(n, 1, body); })->wait();
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(visits[i].load(), 1) << "item " << i;
  };
  {
    std::vector<std::atomic<int>> visits(n);
    std::vector<const void*> ran_from(n);
    const recording_body<8> small{visits.data(), ran_from.data()};
    static_assert(sizeof(small) <= parallel_context::max_copied_body);
    run(small, visits);
    // Three chunks, each run from its own copy in the pool: three addresses, none of them the caller's.
    const std::set<const void*> bodies(ran_from.begin(), ran_from.end());
    EXPECT_EQ(bodies.size(), 3U);
    EXPECT_EQ(bodies.count(&small), 0U);
  }
  {
    std::vector<std::atomic<int>> visits(n);
    std::vector<const void*> ran_from(n);
    const recording_body<parallel_context::max_copied_body> large{visits.data(), ran_from.data()};
    run(large, visits);  // too large to copy: every chunk runs the caller's object
    EXPECT_EQ(std::set<const void*>(ran_from.begin(), ran_from.end()), std::set<const void*>{&large});
  }
  {
    std::vector<std::atomic<int>> visits(n);
    const std::vector<int> owned(1, 1);  // not trivially copyable: goes by reference, through std::function
    run(
        [&visits, owned](std::size_t begin, std::size_t end) {
          for (std::size_t i = begin; i < end; ++i) visits[i].fetch_add(owned[0]);
        },
        visits);
  }
}

TEST(HostBuffer, RoundTripsDataAndRejectsOversizedCopies) {
  host_buffer b(16);
  const float in[4] = {1, 2, 3, 4};
  float out[4] = {};
  b.write(in, sizeof(in));
  b.read(out, sizeof(out));
  EXPECT_EQ(std::vector<float>(out, out + 4), std::vector<float>(in, in + 4));
  float big[8] = {};
  EXPECT_THROW(b.write(big, sizeof(big)), kbench::error);
  EXPECT_THROW(b.read(big, sizeof(big)), kbench::error);
}

// Every operand starts on a page (and a buffer of a huge page or more on a huge page), whatever the heap held
// before, so that a kernel's operands have the same layout in every process (host_buffer.cpp).
TEST(HostBuffer, StartsOnAPageWhateverWasAllocatedBefore) {
  constexpr std::uintptr_t page = 4096;
  constexpr std::uintptr_t huge_page = std::uintptr_t{2} << 20;
  std::vector<std::unique_ptr<char[]>> clutter;  // odd-sized heap blocks between the buffers
  std::vector<std::unique_ptr<host_buffer>> buffers;
  for (const std::size_t bytes : {std::size_t{1}, std::size_t{100}, std::size_t{4097}, std::size_t{65536},
                                  std::size_t{1} << 20, (std::size_t{2} << 20) - 1, std::size_t{2} << 20}) {
    clutter.push_back(std::make_unique<char[]>(bytes % 977 + 24));
    buffers.push_back(std::make_unique<host_buffer>(bytes));
    const auto address = reinterpret_cast<std::uintptr_t>(buffers.back()->data());
    EXPECT_EQ(address % page, 0u) << bytes << " bytes";
    if (bytes >= huge_page) {
      EXPECT_EQ(address % huge_page, 0u) << bytes << " bytes";
    }
  }
}

TEST(HostBuffer, FillSetsEveryByte) {
  constexpr std::size_t bytes = 4099;  // not a multiple of a vector
  host_buffer b(bytes);
  std::vector<unsigned char> values(bytes);
  for (std::size_t i = 0; i < bytes; ++i) values[i] = static_cast<unsigned char>(i % 251);
  b.write(values.data(), bytes);
  b.fill(std::byte{0xFF});
  std::vector<unsigned char> back(bytes, 0);
  b.read(back.data(), bytes);
  EXPECT_EQ(back, std::vector<unsigned char>(bytes, 0xFF));
}

}  // namespace
}  // namespace kbench::cpu
