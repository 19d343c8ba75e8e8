#pragma once
// Metrics that mark a kernel x shape's point of a run rather than measure it. The history keeps metrics and
// drops extra_info, so what `kbench run` decided about a shape travels as metrics of its own, beside the
// timings: whether the machine was busy, the speedup's verdict, whether the caches served the shape. The
// regression detector never judges them; the report draws the run's decisions from them, not its own.

#include <optional>
#include <string_view>

namespace kbench::io {

/// 1: other work took the CPUs while the shape was timed; 0: quiet.
inline constexpr std::string_view machine_disturbed_metric = "machine_disturbed";
/// The speedup's verdict as a code (verdict_code).
inline constexpr std::string_view speedup_verdict_metric = "speedup_verdict";
/// 1: the shape moves no more than the caches hold (or beat the memory's peak), so its share of the memory's
/// peak means nothing; 0: the memory served it.
inline constexpr std::string_view served_from_cache_metric = "served_from_cache";

/// Whether `metric` is one of the marks above.
[[nodiscard]] bool is_mark_metric(std::string_view metric);

/// faster 1, same 0, slower -1, unreliable 2; nullopt for another word.
[[nodiscard]] std::optional<double> verdict_code(std::string_view verdict);
/// The word of a code of verdict_code; nullopt for another value.
[[nodiscard]] std::optional<std::string_view> verdict_of_code(double code);

}  // namespace kbench::io
