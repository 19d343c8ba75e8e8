#pragma once
// The PyTorch-benchmark-hub v3 records of what the suite measured (io/json_v3.hpp): those of one shape of
// `kbench run` and those of one implementation of `kbench measure`.

#include <kbench/io/json_v3.hpp>
#include <kbench/suite/calibrate.hpp>
#include <kbench/suite/measure_kernel.hpp>
#include <kbench/suite/shape_result.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace kbench::suite {

/// One shape of `kbench run`: per implementation its accuracy, the three measures and the capture; for
/// kbench also the tuning time, the speedup with its interval, the bandwidth (against `peak` when known),
/// GFLOP/s of a compute-bound shape and the share of the triad timed beside it. One failure record where
/// nothing ran. `effort` and `timestamp` [s since the epoch] go into every record.
[[nodiscard]] nlohmann::json shape_records(const shape_result& r, const std::string& effort,
                                           std::int64_t timestamp, const std::optional<calibration>& peak,
                                           double min_effect = default_min_effect);

/// One implementation of `kbench measure`: its accuracy, the three measures with their medians, spreads and
/// 99% intervals, and the capture; `fault` (none, result, barrier, both) is recorded when injected.
[[nodiscard]] nlohmann::json measurement_records(const kernel_definition& kernel, const shape& s,
                                                 const implementation_measurement& m, std::int64_t timestamp,
                                                 const std::string& fault);

}  // namespace kbench::suite
