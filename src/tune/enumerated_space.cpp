#include <kbench/error.hpp>
#include <kbench/tune/enumerated_space.hpp>

#include <limits>

namespace kbench::tune {

enumerated_space::enumerated_space(std::vector<parameter> parameters, const std::vector<point>& points,
                                   std::optional<point> default_point)
    : m_parameters(std::move(parameters)), m_count(points.size()) {
  if (m_count > std::numeric_limits<config_id>::max()) KBENCH_THROW("too many configs: {}", m_count);
  // Mixed-radix indices must fit in 64 bits.
  double product = 1;
  for (const parameter& p : m_parameters) product *= static_cast<double>(p.size());
  if (product > 1.8e19) KBENCH_THROW("tuning space too large: {:.3g} configs before constraints", product);

  m_coordinates.reserve(m_count * dimensions());
  m_index.reserve(m_count);
  for (const point& p : points) {
    if (p.size() != dimensions())
      KBENCH_THROW("a point has {} coordinates, the space {}", p.size(), dimensions());
    for (std::size_t d = 0; d < dimensions(); ++d) {
      if (p[d] >= m_parameters[d].size()) {
        KBENCH_THROW("value index {} out of range for parameter '{}'", p[d], m_parameters[d].name());
      }
    }
    if (!m_index.emplace(linear_index(p), static_cast<config_id>(m_index.size())).second) {
      KBENCH_THROW("a config is listed twice in the space");
    }
    m_coordinates.insert(m_coordinates.end(), p.begin(), p.end());
  }
  if (default_point) m_default = find(*default_point);
}

std::uint64_t enumerated_space::cartesian_size() const {
  std::uint64_t product = 1;
  for (const parameter& p : m_parameters) product *= p.size();
  return product;
}

std::uint64_t enumerated_space::linear_index(std::span<const std::uint32_t> coordinates) const {
  std::uint64_t index = 0;
  for (std::size_t d = 0; d < dimensions(); ++d) index = index * m_parameters[d].size() + coordinates[d];
  return index;
}

config enumerated_space::to_config(config_id id) const {
  config values;
  const auto c = coordinates(id);
  for (std::size_t d = 0; d < dimensions(); ++d)
    values[m_parameters[d].name()] = m_parameters[d].values()[c[d]];
  return values;
}

std::optional<config_id> enumerated_space::find(std::span<const std::uint32_t> coordinates) const {
  if (coordinates.size() != dimensions()) return std::nullopt;
  for (std::size_t d = 0; d < dimensions(); ++d) {
    if (coordinates[d] >= m_parameters[d].size()) return std::nullopt;
  }
  const auto it = m_index.find(linear_index(coordinates));
  if (it == m_index.end()) return std::nullopt;
  return it->second;
}

std::optional<config_id> enumerated_space::find(const config& values) const {
  if (values.size() != dimensions()) return std::nullopt;
  point p(dimensions());
  for (std::size_t d = 0; d < dimensions(); ++d) {
    const auto it = values.find(m_parameters[d].name());
    if (it == values.end()) return std::nullopt;
    const auto index = m_parameters[d].index_of(it->second);
    if (!index) return std::nullopt;
    p[d] = static_cast<std::uint32_t>(*index);
  }
  return find(p);
}

std::vector<config_id> enumerated_space::single_step_neighbours(config_id id) const {
  std::vector<config_id> result;
  const auto c = coordinates(id);
  point p(c.begin(), c.end());
  for (std::size_t d = 0; d < dimensions(); ++d) {
    const std::uint32_t own = c[d];
    const auto n = static_cast<std::uint32_t>(m_parameters[d].size());
    const auto try_value = [&](std::uint32_t v) {
      p[d] = v;
      if (const auto found = find(p)) result.push_back(*found);
    };
    if (m_parameters[d].is_ordered()) {
      if (own > 0) try_value(own - 1);
      if (own + 1 < n) try_value(own + 1);
    } else {
      for (std::uint32_t v = 0; v < n; ++v) {
        if (v != own) try_value(v);
      }
    }
    p[d] = own;
  }
  return result;
}

std::vector<config_id> enumerated_space::pair_step_neighbours(config_id id) const {
  std::vector<config_id> result;
  const auto c = coordinates(id);
  point p(c.begin(), c.end());
  for (std::size_t a = 0; a < dimensions(); ++a) {
    if (!m_parameters[a].is_block_size()) continue;
    for (std::size_t b = a + 1; b < dimensions(); ++b) {
      if (!m_parameters[b].is_block_size()) continue;
      for (const int da : {-1, 1}) {
        for (const int db : {-1, 1}) {
          const std::int64_t va = std::int64_t{c[a]} + da;
          const std::int64_t vb = std::int64_t{c[b]} + db;
          if (va < 0 || vb < 0 || va >= static_cast<std::int64_t>(m_parameters[a].size()) ||
              vb >= static_cast<std::int64_t>(m_parameters[b].size())) {
            continue;
          }
          p[a] = static_cast<std::uint32_t>(va);
          p[b] = static_cast<std::uint32_t>(vb);
          if (const auto found = find(p)) result.push_back(*found);
          p[a] = c[a];
          p[b] = c[b];
        }
      }
    }
  }
  return result;
}

std::vector<config_id> enumerated_space::neighbours(config_id id) const {
  std::vector<config_id> result = single_step_neighbours(id);
  const std::vector<config_id> pairs = pair_step_neighbours(id);
  result.insert(result.end(), pairs.begin(), pairs.end());
  return result;
}

}  // namespace kbench::tune
