// simd::for_tasks (kernels/common/cpu_rows_simd.hpp), the parallel loop of the cpu kernels: each worker runs
// its own block of tasks, then takes what is left in the others'. Every item must be visited exactly once,
// also when one worker is held up and the others take over its block.

#include <kbench/backends/cpu.hpp>

#include "../../kernels/common/cpu_rows_simd.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace kbench::kernels {
namespace {

void expect_each_once(const std::vector<std::atomic<int>>& visits, const std::string& what) {
  for (std::size_t i = 0; i < visits.size(); ++i) ASSERT_EQ(visits[i].load(), 1) << what << " item " << i;
}

TEST(ForTasks, VisitsEveryItemExactlyOnce) {
  // 3 workers, and 10: more than for_tasks keeps counters for on its stack (8). n = 9 and 30 with grain 3
  // give as many tasks as workers (the loop's chunks are the tasks), n = 29 one fewer with a short last one.
  for (unsigned workers : {3U, 10U}) {
    cpu::cpu_device device(workers);
    for (std::size_t n : {0UL, 1UL, 5UL, 9UL, 29UL, 30UL, 1000UL, 65537UL}) {
      for (std::size_t grain : {1UL, 3UL, 64UL, 4096UL, 1UL << 20}) {
        std::vector<std::atomic<int>> visits(n);
        device
            .launch([&](const cpu::parallel_context& ctx) {
              simd::for_tasks(ctx, n, grain, [&](std::size_t begin, std::size_t end) {
                for (std::size_t i = begin; i < end; ++i) visits[i].fetch_add(1);
              });
            })
            ->wait();
        expect_each_once(visits, "workers=" + std::to_string(workers) + " n=" + std::to_string(n) +
                                     " grain=" + std::to_string(grain));
      }
    }
  }
}

TEST(ForTasks, OthersFinishTheBlockOfAWorkerThatIsHeldUp) {
  cpu::cpu_device device(2);
  const std::size_t n = 64;  // 64 tasks of 1 item: blocks [0, 32) and [32, 64)
  std::vector<std::atomic<int>> visits(n);
  std::vector<std::atomic<std::thread::id>> ran_by(n);
  device
      .launch([&](const cpu::parallel_context& ctx) {
        simd::for_tasks(ctx, n, 1, [&](std::size_t begin, std::size_t end) {
          if (begin == 0)
            std::this_thread::sleep_for(std::chrono::milliseconds(200));  // block 0's first task
          for (std::size_t i = begin; i < end; ++i) {
            ran_by[i] = std::this_thread::get_id();
            visits[i].fetch_add(1);
          }
        });
      })
      ->wait();
  expect_each_once(visits, "held-up worker");
  // Whoever ran task 0 slept 200 ms; the other worker had long finished block 1 by then and took the rest of
  // block 0, so task 1 ran on a different thread than task 0.
  EXPECT_NE(ran_by[0].load(), ran_by[1].load());
}

}  // namespace
}  // namespace kbench::kernels
