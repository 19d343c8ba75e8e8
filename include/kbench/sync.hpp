#pragma once
// Synchronization with verification. Every wait kbench does is followed by a status query of the awaited
// work; work that is not complete after its wait is a *sync violation*: the wait returned early.

#include <kbench/bench_target.hpp>
#include <kbench/call_result.hpp>

#include <span>

namespace kbench {

/// Waits on every event of `result` (the backend's own wait), then counts the events that still report
/// incomplete. Returns that count: 0 for a correct sync. Outputs stay alive in `result` throughout.
[[nodiscard]] int sync_and_check(const call_result& result);

/// Runs `target.barrier()`, then counts events of `results` that still report incomplete (0 when correct).
[[nodiscard]] int barrier_and_check(const bench_target& target, std::span<const call_result> results);

/// Counts calls of `results` whose every event reports complete with device timestamps right now (the
/// capture).
[[nodiscard]] std::size_t count_captured(std::span<const call_result> results);

/// Waits for every event of `results` by polling their status, so that work left running by a broken sync
/// finishes before the next sample. Never trusts the backend's wait.
void drain(std::span<const call_result> results);

/// Sum of the device intervals of a call's events [ms]; nullopt if any event has no timestamps.
[[nodiscard]] std::optional<double> device_time_ms(const call_result& result);

}  // namespace kbench
