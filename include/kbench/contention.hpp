#pragma once
// Whether the machine was quiet while kbench timed something: what the other processes and the hypervisor
// took from it during the window. A measurement from a busy machine is not a property of the kernel, and
// kbench says so (a shape's verdict becomes "unreliable") instead of printing it as one.
//
// Read from Linux's /proc/stat (the CPUs' busy and steal time), getrusage (this process's CPU time and
// involuntary context switches) and /proc/loadavg. Elsewhere the probe knows nothing and calls the window
// quiet with the reason "not measured".

#include <kbench/device_clocks.hpp>

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <string>

namespace kbench {

struct contention {
  double wall_s = 0;                      // [s] the window
  unsigned cpus = 0;                      // CPUs the kernel counts in /proc/stat
  double own_cpu_s = 0;                   // [s] CPU time of this process (every thread), user + system
  double others_cpu_s = 0;                // [s] busy CPU time of everything else: the machine's less own
  double steal_s = 0;                     // [s] CPU time the hypervisor gave to other guests
  std::int64_t involuntary_switches = 0;  // this process's threads preempted during the window
  double load_average = 0;                // 1-minute load average at the end (coarse: a minute's memory)
  double resolution_s = 0;  // [s] the accounting's granularity: a clock tick per CPU at each end
  bool measured = false;    // false where /proc is not readable
  bool quiet = true;
  std::string reason;         // why not quiet, e.g. "other processes used 48% of the 2 CPUs"
  std::string device_detail;  // the device's clocks at both ends of the window, where its driver gives them

  /// (others_cpu_s less resolution_s) / (wall_s * cpus): the share of the machine other work surely used
  /// [fraction].
  [[nodiscard]] double others_fraction() const;
  /// steal_s / (wall_s * cpus) [fraction].
  [[nodiscard]] double steal_fraction() const;
  /// For messages and records: "quiet (others, steal and preemptions of the window)", or "disturbed: " and
  /// the reason.
  [[nodiscard]] std::string describe() const;
};

/// [fractions of the machine's CPU time in the window] Above either, a window is disturbed. A busy loop on
/// one CPU of two is 50%; the machine's own housekeeping (kernel threads, a VM's agent) stays at a few
/// percent (docs/contention.md gives the figures), and 10% lies between.
inline constexpr double max_quiet_others_fraction = 0.10;
inline constexpr double max_quiet_steal_fraction = 0.05;

/// Sets `c.quiet` and `c.reason` from its numbers and the thresholds above.
void classify(contention& c);

/// [s] The shortest window the CPU accounting can judge: /proc/stat counts in clock ticks (10 ms here), so a
/// window of a few milliseconds sees no tick of a busy loop beside it. finish(min_window_s) waits, idle,
/// until the window is this long.
inline constexpr double min_judged_window_s = 0.25;

/// Snapshots the machine at construction; finish() gives what happened since.
class contention_probe {
 public:
  contention_probe();
  /// The window from construction to now, first extended by sleeping (this process idle, the others read
  /// all the same) until it lasts `min_window_s` [s].
  [[nodiscard]] contention finish(double min_window_s = 0) const;

 private:
  struct snapshot {
    double wall_s = 0;
    double busy_s = 0, steal_s = 0;  // summed over CPUs, from /proc/stat
    double own_cpu_s = 0;
    std::int64_t involuntary_switches = 0;
    unsigned cpus = 0;
    bool measured = false;
  };
  [[nodiscard]] static snapshot take();
  snapshot m_start;
};

/// Adds a device's clocks read at the start and the end of the window (device::clocks()): their detail, and,
/// when the driver slowed the device down at either end (device_clocks::throttled), the window is not quiet
/// and the reason says why. Clocks that were not measured change nothing.
void add_device_clocks(contention& c, const device_clocks& before, const device_clocks& after);

/// Waits until a quarter-second window is quiet, for at most `limit_s` [s]; returns the last window (quiet,
/// or the one at which the limit ran out). What `--require-quiet` does before timing a shape.
[[nodiscard]] contention wait_for_quiet(double limit_s);

/// A contention as JSON: how a worker's measure of the machine travels to the suite (found by ADL).
void to_json(nlohmann::json& j, const contention& c);
void from_json(const nlohmann::json& j, contention& c);

}  // namespace kbench
