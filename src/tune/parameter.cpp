#include <kbench/error.hpp>
#include <kbench/tune/parameter.hpp>

#include <algorithm>
#include <set>

namespace kbench::tune {

const char* to_string(parameter_kind kind) {
  switch (kind) {
    case parameter_kind::power_of_two:
      return "power_of_two";
    case parameter_kind::integers:
      return "integers";
    case parameter_kind::enumeration:
      return "enumeration";
    case parameter_kind::boolean:
      return "boolean";
  }
  return "?";
}

parameter::parameter(std::string name, parameter_kind kind, std::vector<std::int64_t> values,
                     std::vector<std::string> labels)
    : m_name(std::move(name)), m_kind(kind), m_values(std::move(values)), m_labels(std::move(labels)) {
  if (m_name.empty()) KBENCH_THROW("a tuning parameter needs a name");
  if (m_values.empty()) KBENCH_THROW("tuning parameter '{}' has no values", m_name);
}

parameter parameter::power_of_two(std::string name, std::int64_t low, std::int64_t high) {
  const auto is_pow2 = [](std::int64_t v) { return v > 0 && (v & (v - 1)) == 0; };
  if (!is_pow2(low) || !is_pow2(high) || low > high) {
    KBENCH_THROW("tuning parameter '{}': power-of-two range [{}, {}] needs powers of two with low <= high",
                 name, low, high);
  }
  std::vector<std::int64_t> values;
  for (std::int64_t v = low; v <= high; v *= 2) {
    values.push_back(v);
    if (v > (std::int64_t{1} << 61)) break;  // no overflow on the last doubling
  }
  return {std::move(name), parameter_kind::power_of_two, std::move(values), {}};
}

parameter parameter::integers(std::string name, std::vector<std::int64_t> values) {
  std::sort(values.begin(), values.end());
  if (std::adjacent_find(values.begin(), values.end()) != values.end()) {
    KBENCH_THROW("tuning parameter '{}' lists a value twice", name);
  }
  return {std::move(name), parameter_kind::integers, std::move(values), {}};
}

parameter parameter::enumeration(std::string name, std::vector<std::string> labels) {
  if (std::set<std::string>(labels.begin(), labels.end()).size() != labels.size()) {
    KBENCH_THROW("tuning parameter '{}' lists a label twice", name);
  }
  std::vector<std::int64_t> values(labels.size());
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<std::int64_t>(i);
  return {std::move(name), parameter_kind::enumeration, std::move(values), std::move(labels)};
}

parameter parameter::boolean(std::string name) {
  return {std::move(name), parameter_kind::boolean, {0, 1}, {}};
}

std::optional<std::size_t> parameter::index_of(std::int64_t value) const {
  if (m_kind == parameter_kind::enumeration || m_kind == parameter_kind::boolean) {
    if (value >= 0 && static_cast<std::size_t>(value) < m_values.size())
      return static_cast<std::size_t>(value);
    return std::nullopt;
  }
  const auto it = std::lower_bound(m_values.begin(), m_values.end(), value);
  if (it == m_values.end() || *it != value) return std::nullopt;
  return static_cast<std::size_t>(it - m_values.begin());
}

std::string parameter::value_text(std::int64_t value) const {
  if (m_kind == parameter_kind::enumeration && index_of(value))
    return m_labels[static_cast<std::size_t>(value)];
  if (m_kind == parameter_kind::boolean && index_of(value)) return value ? "true" : "false";
  return std::to_string(value);
}

}  // namespace kbench::tune
