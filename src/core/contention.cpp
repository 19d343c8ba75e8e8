#include <kbench/contention.hpp>

#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include <sys/resource.h>
#include <unistd.h>

namespace kbench {

double contention::others_fraction() const {
  return wall_s > 0 && cpus > 0 ? std::max(0.0, others_cpu_s - resolution_s) / (wall_s * cpus) : 0.0;
}

double contention::steal_fraction() const {
  return wall_s > 0 && cpus > 0 ? steal_s / (wall_s * cpus) : 0.0;
}

std::string contention::describe() const {
  const std::string device = device_detail.empty() ? "" : "; " + device_detail;
  if (!quiet) return "disturbed: " + reason + (reason.find(device_detail) == std::string::npos ? device : "");
  if (!measured) return "quiet (not measured: no /proc here)" + device;
  return fmt::format("quiet (others {:.1f}% of {} CPUs, steal {:.1f}%, {} preemptions){}",
                     100 * others_fraction(), cpus, 100 * steal_fraction(), involuntary_switches, device);
}

void add_device_clocks(contention& c, const device_clocks& before, const device_clocks& after) {
  if (!before.measured && !after.measured) return;
  c.device_detail =
      fmt::format("GPU {} at the start, {} at the end", before.measured ? before.detail : "unread",
                  after.measured ? after.detail : "unread");
  if (before.throttled || after.throttled) {
    c.quiet = false;
    c.reason +=
        fmt::format("{}the driver slowed the GPU down ({})", c.reason.empty() ? "" : "; ", c.device_detail);
  }
}

void classify(contention& c) {
  c.quiet = true;
  c.reason.clear();
  if (!c.measured) return;
  std::string reasons;
  if (c.others_fraction() > max_quiet_others_fraction) {
    reasons = fmt::format("other processes used {:.0f}% of the {} CPUs (load average {:.2f})",
                          100 * c.others_fraction(), c.cpus, c.load_average);
  }
  if (c.steal_fraction() > max_quiet_steal_fraction) {
    reasons += fmt::format("{}the hypervisor stole {:.0f}% of the CPU time", reasons.empty() ? "" : "; ",
                           100 * c.steal_fraction());
  }
  c.quiet = reasons.empty();
  c.reason = std::move(reasons);
}

contention_probe::contention_probe() : m_start(take()) {}

contention_probe::snapshot contention_probe::take() {
  snapshot s;
  s.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) == 0) {
    s.own_cpu_s = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                  static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6;
    s.involuntary_switches = usage.ru_nivcsw;
  }
  // The first line of /proc/stat: "cpu user nice system idle iowait irq softirq steal guest guest_nice", in
  // clock ticks summed over the CPUs; the "cpuN" lines that follow count the CPUs. Guest time is already in
  // user and nice.
  std::ifstream stat("/proc/stat");
  std::string line;
  const double tick_s = 1.0 / static_cast<double>(sysconf(_SC_CLK_TCK));
  while (std::getline(stat, line)) {
    if (line.rfind("cpu ", 0) == 0) {
      std::istringstream fields(line.substr(4));
      double user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
      if (fields >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal) {
        s.busy_s = (user + nice + system + irq + softirq) * tick_s;
        s.steal_s = steal * tick_s;
        s.measured = true;
      }
    } else if (line.rfind("cpu", 0) == 0) {
      ++s.cpus;
    } else {
      break;
    }
  }
  return s;
}

contention contention_probe::finish(double min_window_s) const {
  snapshot end = take();
  if (const double short_by = min_window_s - (end.wall_s - m_start.wall_s); short_by > 0) {
    std::this_thread::sleep_for(std::chrono::duration<double>(short_by));
    end = take();
  }
  contention c;
  c.measured = m_start.measured && end.measured && end.cpus > 0;
  c.wall_s = end.wall_s - m_start.wall_s;
  c.cpus = end.cpus;
  c.own_cpu_s = end.own_cpu_s - m_start.own_cpu_s;
  // The kernel's tick accounting and getrusage's differ by up to a tick per CPU: never below zero.
  c.others_cpu_s = std::max(0.0, (end.busy_s - m_start.busy_s) - c.own_cpu_s);
  c.steal_s = end.steal_s - m_start.steal_s;
  c.resolution_s = 2.0 * c.cpus / static_cast<double>(sysconf(_SC_CLK_TCK));
  c.involuntary_switches = end.involuntary_switches - m_start.involuntary_switches;
  std::ifstream("/proc/loadavg") >> c.load_average;
  classify(c);
  return c;
}

contention wait_for_quiet(double limit_s) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(limit_s);
  for (;;) {
    const contention_probe probe;
    contention window = probe.finish(min_judged_window_s);  // an idle window
    if (window.quiet || std::chrono::steady_clock::now() >= deadline) return window;
  }
}

void to_json(nlohmann::json& j, const contention& c) {
  j = {{"wall_s", c.wall_s},
       {"cpus", c.cpus},
       {"own_cpu_s", c.own_cpu_s},
       {"others_cpu_s", c.others_cpu_s},
       {"steal_s", c.steal_s},
       {"involuntary_switches", c.involuntary_switches},
       {"load_average", c.load_average},
       {"resolution_s", c.resolution_s},
       {"measured", c.measured},
       {"quiet", c.quiet},
       {"reason", c.reason}};
  if (!c.device_detail.empty()) j["device_detail"] = c.device_detail;
}

void from_json(const nlohmann::json& j, contention& c) {
  c.wall_s = j.at("wall_s");
  c.cpus = j.at("cpus");
  c.own_cpu_s = j.at("own_cpu_s");
  c.others_cpu_s = j.at("others_cpu_s");
  c.steal_s = j.at("steal_s");
  c.involuntary_switches = j.at("involuntary_switches");
  c.load_average = j.at("load_average");
  c.resolution_s = j.at("resolution_s");
  c.measured = j.at("measured");
  c.quiet = j.at("quiet");
  c.reason = j.at("reason");
  c.device_detail = j.value("device_detail", std::string());
}

}  // namespace kbench
