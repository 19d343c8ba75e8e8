#pragma once
// The valid configs of a tuning space on one device, numbered 0..size()-1, with the geometry strategies need:
// each config's value indices per parameter, lookup of a point, and its neighbourhood.
// Built by space::enumerate (constraints applied) or directly from a recorded list of configs (simulation).

#include <kbench/config.hpp>
#include <kbench/tune/parameter.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

namespace kbench::tune {

/// Index of a valid config in an enumerated_space.
using config_id = std::uint32_t;
/// One value index per parameter (index into parameter::values()).
using point = std::vector<std::uint32_t>;

class enumerated_space {
 public:
  /// `points` are the valid configs as value indices; they must be distinct and within each parameter's
  /// range. `default_point` is used as a starting point when it is among them.
  enumerated_space(std::vector<parameter> parameters, const std::vector<point>& points,
                   std::optional<point> default_point = std::nullopt);

  [[nodiscard]] std::size_t size() const { return m_count; }
  [[nodiscard]] std::size_t dimensions() const { return m_parameters.size(); }
  [[nodiscard]] const std::vector<parameter>& parameters() const { return m_parameters; }
  /// Number of configs before constraints.
  [[nodiscard]] std::uint64_t cartesian_size() const;

  /// Value indices of config `id`, one per parameter.
  [[nodiscard]] std::span<const std::uint32_t> coordinates(config_id id) const {
    return {m_coordinates.data() + static_cast<std::size_t>(id) * dimensions(), dimensions()};
  }
  [[nodiscard]] config to_config(config_id id) const;
  [[nodiscard]] std::optional<config_id> find(std::span<const std::uint32_t> coordinates) const;
  [[nodiscard]] std::optional<config_id> find(const config& values) const;
  /// The default config's id, when the default is valid.
  [[nodiscard]] std::optional<config_id> default_id() const { return m_default; }

  /// Valid configs one step away in one parameter: the next lower/higher value of an ordered parameter, any
  /// other value of an enum or boolean.
  [[nodiscard]] std::vector<config_id> single_step_neighbours(config_id id) const;
  /// Valid configs reached by a step in each of two block-size parameters at once (both directions each).
  [[nodiscard]] std::vector<config_id> pair_step_neighbours(config_id id) const;
  /// Both of the above, single steps first.
  [[nodiscard]] std::vector<config_id> neighbours(config_id id) const;

 private:
  [[nodiscard]] std::uint64_t linear_index(std::span<const std::uint32_t> coordinates) const;

  std::vector<parameter> m_parameters;
  std::size_t m_count = 0;
  std::vector<std::uint32_t> m_coordinates;              // m_count x dimensions(), row-major
  std::unordered_map<std::uint64_t, config_id> m_index;  // mixed-radix index of a point -> id
  std::optional<config_id> m_default;
};

}  // namespace kbench::tune
