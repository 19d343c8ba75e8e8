#pragma once
// What strategies minimize: the time of a config, +infinity for a failed one (never preferred to a working
// one).

#include <kbench/tune/evaluation.hpp>

#include <limits>

namespace kbench::tune::detail {

[[nodiscard]] inline double score(const evaluation& e) {
  return e.ok() ? e.time_ms : std::numeric_limits<double>::infinity();
}

}  // namespace kbench::tune::detail
