#include <kbench/tune/space.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace kbench::tune {

namespace {

// Spaces are enumerated eagerly; beyond this many configs before constraints that would take too long.
constexpr std::uint64_t max_enumerated = std::uint64_t{1} << 26;

struct fnv1a {
  std::uint64_t state = 14695981039346656037ull;
  void bytes(const void* data, std::size_t n) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < n; ++i) {
      state ^= p[i];
      state *= 1099511628211ull;
    }
  }
  // Little-endian byte order whatever the host, so the hash is the same on every platform.
  void u64(std::uint64_t v) {
    unsigned char b[8];
    for (int i = 0; i < 8; ++i) b[i] = static_cast<unsigned char>(v >> (8 * i));
    bytes(b, 8);
  }
  // Length-prefixed, so ("ab", "c") and ("a", "bc") differ.
  void text(std::string_view s) {
    u64(s.size());
    bytes(s.data(), s.size());
  }
};

}  // namespace

space& space::add(parameter p) {
  for (const parameter& existing : m_parameters) {
    if (existing.name() == p.name()) KBENCH_THROW("tuning parameter '{}' added twice", p.name());
  }
  m_parameters.push_back(std::move(p));
  return *this;
}

space& space::add_constraint(std::string name, std::function<bool(const config&, const device_info&)> holds) {
  if (!holds) KBENCH_THROW("constraint '{}' has no predicate", name);
  m_constraints.push_back({std::move(name), std::move(holds)});
  return *this;
}

space& space::set_default(config values) {
  for (const parameter& p : m_parameters) {
    const auto it = values.find(p.name());
    if (it == values.end()) KBENCH_THROW("the default config does not set tuning parameter '{}'", p.name());
    if (!p.index_of(it->second)) {
      KBENCH_THROW("the default config sets '{}' to {}, not one of its values", p.name(), it->second);
    }
  }
  if (values.size() != m_parameters.size()) KBENCH_THROW("the default config sets an unknown parameter");
  m_default = std::move(values);
  return *this;
}

config space::default_config() const {
  if (!m_default.empty()) return m_default;
  config values;
  for (const parameter& p : m_parameters) values[p.name()] = p.values().front();
  return values;
}

std::uint64_t space::cartesian_size() const {
  std::uint64_t product = 1;
  for (const parameter& p : m_parameters) product *= p.size();
  return product;
}

std::vector<std::string> space::violations(const config& values, const device_info& device) const {
  std::vector<std::string> violated;
  for (const parameter& p : m_parameters) {
    const auto it = values.find(p.name());
    if (it == values.end()) {
      violated.push_back(fmt::format("parameter '{}' is missing", p.name()));
    } else if (!p.index_of(it->second)) {
      violated.push_back(fmt::format("{} is not a value of parameter '{}'", it->second, p.name()));
    }
  }
  for (const auto& entry : values) {
    const std::string& name = entry.first;
    const bool known = std::any_of(m_parameters.begin(), m_parameters.end(),
                                   [&](const parameter& p) { return p.name() == name; });
    if (!known) violated.push_back(fmt::format("'{}' is not a tuning parameter", name));
  }
  if (!violated.empty()) return violated;  // the predicates may assume every parameter is there
  for (const constraint& c : m_constraints) {
    if (!c.holds(values, device)) violated.push_back(c.name);
  }
  return violated;
}

enumerated_space space::enumerate(const device_info& device) const {
  const std::uint64_t total = cartesian_size();
  if (total > max_enumerated) {
    KBENCH_THROW("tuning space too large to enumerate: {} configs before constraints (limit {})", total,
                 max_enumerated);
  }
  std::vector<point> valid;
  std::vector<std::size_t> failures(m_constraints.size(), 0);
  point p(m_parameters.size(), 0);
  config values = default_config();
  for (std::uint64_t n = 0; n < total; ++n) {
    for (std::size_t d = 0; d < p.size(); ++d)
      values[m_parameters[d].name()] = m_parameters[d].values()[p[d]];
    bool ok = true;
    for (std::size_t c = 0; c < m_constraints.size(); ++c) {
      if (!m_constraints[c].holds(values, device)) {
        ++failures[c];
        ok = false;
      }
    }
    if (ok) valid.push_back(p);
    // Next point in lexicographic order, last parameter fastest.
    for (std::size_t d = p.size(); d-- > 0;) {
      if (++p[d] < m_parameters[d].size()) break;
      p[d] = 0;
    }
  }
  if (valid.empty()) {
    std::string detail;
    for (std::size_t c = 0; c < m_constraints.size(); ++c) {
      if (failures[c] == 0) continue;
      detail += fmt::format("{}'{}' rejects {} of {}", detail.empty() ? "" : "; ", m_constraints[c].name,
                            failures[c], total);
    }
    throw empty_space_error(fmt::format(
        "the tuning space is empty on device '{}': none of its {} configs satisfies every constraint ({})",
        device.name, total, detail));
  }
  point default_point(m_parameters.size());
  const config d = default_config();
  for (std::size_t i = 0; i < m_parameters.size(); ++i) {
    default_point[i] = static_cast<std::uint32_t>(*m_parameters[i].index_of(d.at(m_parameters[i].name())));
  }
  return enumerated_space(m_parameters, valid, default_point);
}

std::uint64_t space::definition_hash() const {
  fnv1a h;
  h.text("kbench-tuning-space-v1");
  h.u64(m_parameters.size());
  for (const parameter& p : m_parameters) {
    h.text(p.name());
    h.text(to_string(p.kind()));
    h.u64(p.is_block_size() ? 1 : 0);
    h.u64(p.values().size());
    for (const std::int64_t v : p.values()) h.u64(static_cast<std::uint64_t>(v));
    h.u64(p.labels().size());
    for (const std::string& label : p.labels()) h.text(label);
  }
  h.u64(m_constraints.size());
  for (const constraint& c : m_constraints) h.text(c.name);
  const config d = default_config();
  for (const auto& [name, value] : d) {
    h.text(name);
    h.u64(static_cast<std::uint64_t>(value));
  }
  return h.state;
}

std::string space::definition_hash_text() const {
  return fmt::format("{:016x}", definition_hash());
}

}  // namespace kbench::tune
