#pragma once
// `kbench run`'s tuning table: per kernel, how many shapes were tuned in this run, the configs evaluated
// (and how many failed or were resumed from a checkpoint) and the seconds spent. The nightly's two-pass
// report asks for tuning time per kernel; this prints it instead of leaving it to be summed from the log.

#include <kbench/suite/tune_shape.hpp>

#include <map>
#include <string>

namespace kbench::suite {

class tuning_summary {
 public:
  /// Counts `outcome` for `kernel` if this run tuned it (tuned or no valid config); cache hits, misses and
  /// untunable shapes do not appear in the table.
  void add(const std::string& kernel, const tuning_outcome& outcome);
  [[nodiscard]] bool empty() const { return m_rows.empty(); }
  /// The table with a total row; empty when nothing was tuned.
  [[nodiscard]] std::string render() const;

 private:
  struct row {
    std::size_t shapes = 0;
    std::size_t configs = 0;  // evaluated in this run
    std::size_t failed = 0;
    std::size_t resumed = 0;  // taken from an interrupted tuning's checkpoint
    double seconds = 0;       // [s] of tuning in this run
    row& operator+=(const row& other);
  };
  std::map<std::string, row> m_rows;  // by kernel name, sorted
};

}  // namespace kbench::suite
