#pragma once
// Where the cpu backend's threads run. Pool thread w (the stream's dispatcher is thread 0) is bound to the
// w-th cpu the process may run on, so that chunk w of every parallel loop finds its part of the buffers in
// the same core's L2, as OMP_PROC_BIND does for OpenMP. Left to the scheduler, the thread running chunk 0 and
// a helper were at times queued on one core while the host thread waiting for the kernel held the other, and
// the loop ran at half speed for the whole process. KBENCH_CPU_BIND=0 turns binding off.
//
// The host thread is the caller's and is not bound. When it waits on the dispatcher's cpu, the two take
// turns on one core at every launch, and the scheduler left them there for the whole process (about one
// context switch per sample). So a host that waits steps off the dispatcher's cpu first (step_off_cpu).
// Figures: docs/code-figures.md.

namespace kbench::cpu {

/// The cpu pool thread `index` is bound to: the index-th (mod their count) cpu this process may run on;
/// -1 when binding is off (KBENCH_CPU_BIND=0), the process may run on one cpu only, or affinity cannot be
/// read.
[[nodiscard]] int cpu_for_pool_thread(unsigned index);

/// Binds the calling thread to `cpu`; does nothing for -1 or where affinity cannot be set.
void bind_current_thread(int cpu);

/// When the calling thread runs on `cpu`, moves it to another cpu its affinity mask allows and then puts
/// the mask back as it was: the thread stays where it was moved until the scheduler moves it again, and
/// its mask is unchanged. Does nothing for -1, off `cpu`, or when the mask allows `cpu` only. Costs a
/// sched_getcpu (tens of ns) when there is nothing to do.
void step_off_cpu(int cpu);

}  // namespace kbench::cpu
