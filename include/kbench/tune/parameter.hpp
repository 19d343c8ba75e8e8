#pragma once
// One tuning parameter: a name and its ordered list of integer values. Enum values are named by strings but
// stored as their index (0, 1, ...), booleans as 0/1, so that every config stays a kbench::config.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kbench::tune {

enum class parameter_kind { power_of_two, integers, enumeration, boolean };

[[nodiscard]] const char* to_string(parameter_kind kind);

class parameter {
 public:
  /// Every power of two from `low` to `high`, both included (both must be powers of two, low <= high).
  /// **Example**: `parameter::power_of_two("BLOCK", 32, 1024)` -> 32, 64, ..., 1024.
  [[nodiscard]] static parameter power_of_two(std::string name, std::int64_t low, std::int64_t high);
  /// The given integers, sorted ascending (neighbours are one step apart in that order); duplicates are an
  /// error.
  [[nodiscard]] static parameter integers(std::string name, std::vector<std::int64_t> values);
  /// Named choices stored as 0, 1, ... in the order given; labels must be distinct.
  [[nodiscard]] static parameter enumeration(std::string name, std::vector<std::string> labels);
  /// 0 (false) or 1 (true).
  [[nodiscard]] static parameter boolean(std::string name);

  /// Marks a block-size-like parameter: pattern search and the neighbourhood also move two of these at once
  /// (one up, one down, ...), which keeps a product such as the work-group size within a device limit.
  parameter& block_size(bool on = true) {
    m_block_size = on;
    return *this;
  }

  /// Marks a parameter whose higher values the final pick prefers among configs it cannot tell apart (their
  /// re-timed medians lie within the 99% interval of the fastest's; suite/detail/final_pick.hpp): e.g. the
  /// wider vector ISA, which a memory-bound kernel needs once the memory gets faster but which ties with the
  /// narrower one while it is slow. The search itself ignores the mark, and so does the space hash (it picks
  /// among the same configs).
  parameter& prefer_higher_on_tie(bool on = true) {
    m_prefer_higher_on_tie = on;
    return *this;
  }

  [[nodiscard]] const std::string& name() const { return m_name; }
  [[nodiscard]] parameter_kind kind() const { return m_kind; }
  [[nodiscard]] const std::vector<std::int64_t>& values() const { return m_values; }
  /// Enum labels, empty for the other kinds.
  [[nodiscard]] const std::vector<std::string>& labels() const { return m_labels; }
  [[nodiscard]] std::size_t size() const { return m_values.size(); }
  [[nodiscard]] bool is_block_size() const { return m_block_size; }
  [[nodiscard]] bool prefers_higher_on_tie() const { return m_prefer_higher_on_tie; }
  /// Numeric parameters have an order (a step goes to the next value); enums and booleans do not (every
  /// other value is one step away).
  [[nodiscard]] bool is_ordered() const {
    return m_kind == parameter_kind::power_of_two || m_kind == parameter_kind::integers;
  }
  [[nodiscard]] std::optional<std::size_t> index_of(std::int64_t value) const;
  /// The value as a user reads it: the enum label, "true"/"false", or the number.
  [[nodiscard]] std::string value_text(std::int64_t value) const;

 private:
  parameter(std::string name, parameter_kind kind, std::vector<std::int64_t> values,
            std::vector<std::string> labels);

  std::string m_name;
  parameter_kind m_kind;
  std::vector<std::int64_t> m_values;
  std::vector<std::string> m_labels;
  bool m_block_size = false;
  bool m_prefer_higher_on_tie = false;
};

}  // namespace kbench::tune
