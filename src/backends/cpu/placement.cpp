#include "backends/cpu/placement.hpp"

#include <pthread.h>
#include <sched.h>

#include <cstdlib>
#include <string_view>

namespace kbench::cpu {

int cpu_for_pool_thread(unsigned index) {
  const char* setting = std::getenv("KBENCH_CPU_BIND");
  if (setting != nullptr && std::string_view(setting) == "0") return -1;
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0) return -1;
  const int count = CPU_COUNT(&allowed);
  if (count <= 1) return -1;
  int wanted = static_cast<int>(index % static_cast<unsigned>(count));
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &allowed) && wanted-- == 0) return cpu;
  }
  return -1;
}

void bind_current_thread(int cpu) {
  if (cpu < 0 || cpu >= CPU_SETSIZE) return;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  (void)pthread_setaffinity_np(pthread_self(), sizeof(one), &one);
}

void step_off_cpu(int cpu) {
  if (cpu < 0 || cpu >= CPU_SETSIZE || sched_getcpu() != cpu) return;
  cpu_set_t mask;
  CPU_ZERO(&mask);
  if (pthread_getaffinity_np(pthread_self(), sizeof(mask), &mask) != 0) return;
  cpu_set_t others = mask;
  CPU_CLR(cpu, &others);
  if (CPU_COUNT(&others) == 0) return;
  // Setting a mask without the current cpu migrates the thread before the call returns; putting the old
  // mask back does not move it again, since its new cpu is in that mask too.
  if (pthread_setaffinity_np(pthread_self(), sizeof(others), &others) != 0) return;
  (void)pthread_setaffinity_np(pthread_self(), sizeof(mask), &mask);
}

}  // namespace kbench::cpu
