#pragma once
// Deliberately broken synchronization, to show what a no-op sync looks like and that kbench catches it
// (the TPU failure: torch.accelerator.synchronize() returned at once).

#include <kbench/bench_target.hpp>

#include <string_view>
#include <vector>

namespace kbench {

enum class sync_fault {
  none,
  result,   // waits on a call's results return at once
  barrier,  // the device-wide barrier returns at once
  both,
};

[[nodiscard]] std::string_view to_string(sync_fault fault);
/// Parses none|result|barrier|both; throws usage_error listing them otherwise.
[[nodiscard]] sync_fault parse_sync_fault(std::string_view name);

/// Wraps `target` so that the chosen waits become no-ops. Status queries and timestamps stay real, which is
/// what lets the sync check see the fault.
[[nodiscard]] bench_target inject_sync_fault(bench_target target, sync_fault fault);

}  // namespace kbench
