#include <kbench/error.hpp>
#include <kbench/tune/strategy.hpp>

#include "strategies/strategies.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>

namespace kbench::tune {

namespace {

std::uint64_t splitmix64(std::uint64_t& x) {
  std::uint64_t z = (x += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

__extension__ typedef unsigned __int128 uint128;  // GCC/Clang builtin, for Lemire's method

std::uint64_t rotl(std::uint64_t x, int k) {
  return (x << k) | (x >> (64 - k));
}

}  // namespace

strategy::strategy(const enumerated_space& space, strategy_options options)
    : m_space(space), m_options(options), m_proposed(space.size(), false) {
  std::uint64_t s = options.seed;
  for (std::uint64_t& word : m_rng_state) word = splitmix64(s);
}

std::optional<config_id> strategy::ask() {
  if (all_proposed()) return std::nullopt;
  const std::optional<config_id> id = do_ask();
  if (!id) KBENCH_THROW("strategy {} proposed nothing though configs are left", name());
  if (*id >= m_space.size()) KBENCH_THROW("strategy {} proposed id {} outside the space", name(), *id);
  if (m_proposed[*id]) KBENCH_THROW("strategy {} proposed config {} twice", name(), *id);
  m_proposed[*id] = true;
  ++m_proposed_count;
  m_outstanding.push_back(*id);
  return id;
}

void strategy::tell(const evaluation& result) {
  if (m_outstanding.empty() || m_outstanding.front() != result.id) {
    KBENCH_THROW("strategy {}: tell() for config {}, but the oldest untold proposal is {}", name(), result.id,
                 m_outstanding.empty() ? std::string("none") : std::to_string(m_outstanding.front()));
  }
  m_outstanding.pop_front();
  do_tell(result);
}

std::uint64_t strategy::uniform(std::uint64_t n) {
  // xoshiro256** and Lemire's nearly-divisionless bounded integers: the same stream on every standard
  // library.
  const auto next = [this] {
    const std::uint64_t result = rotl(m_rng_state[1] * 5, 7) * 9;
    const std::uint64_t t = m_rng_state[1] << 17;
    m_rng_state[2] ^= m_rng_state[0];
    m_rng_state[3] ^= m_rng_state[1];
    m_rng_state[1] ^= m_rng_state[2];
    m_rng_state[0] ^= m_rng_state[3];
    m_rng_state[2] ^= t;
    m_rng_state[3] = rotl(m_rng_state[3], 45);
    return result;
  };
  if (n == 0) return next();
  uint128 m = static_cast<uint128>(next()) * n;
  auto low = static_cast<std::uint64_t>(m);
  if (low < n) {
    const std::uint64_t threshold = (0 - n) % n;
    while (low < threshold) {
      m = static_cast<uint128>(next()) * n;
      low = static_cast<std::uint64_t>(m);
    }
  }
  return static_cast<std::uint64_t>(m >> 64);
}

double strategy::uniform_real() {
  return static_cast<double>(uniform(0) >> 11) * 0x1.0p-53;
}

std::optional<config_id> strategy::random_unproposed() {
  const std::size_t left = m_space.size() - m_proposed_count;
  if (left == 0) return std::nullopt;
  // Rejection while most ids are free; a scan for the k-th free one when few are left.
  if (m_proposed_count * 2 < m_space.size()) {
    for (;;) {
      const auto id = static_cast<config_id>(uniform(m_space.size()));
      if (!m_proposed[id]) return id;
    }
  }
  std::uint64_t k = uniform(left);
  for (config_id id = 0; id < m_space.size(); ++id) {
    if (!m_proposed[id] && k-- == 0) return id;
  }
  return std::nullopt;
}

std::optional<config_id> strategy::nearest_unproposed(std::span<const double> target) const {
  std::optional<config_id> best;
  double best_distance = std::numeric_limits<double>::infinity();
  const std::size_t dims = m_space.dimensions();
  std::vector<double> scale(dims);
  for (std::size_t d = 0; d < dims; ++d) {
    scale[d] = m_space.parameters()[d].size() > 1
                   ? 1.0 / static_cast<double>(m_space.parameters()[d].size() - 1)
                   : 0.0;
  }
  for (config_id id = 0; id < m_space.size(); ++id) {
    if (m_proposed[id]) continue;
    const auto c = m_space.coordinates(id);
    double distance = 0;
    for (std::size_t d = 0; d < dims; ++d) {
      const double delta = (static_cast<double>(c[d]) - target[d]) * scale[d];
      distance += delta * delta;
    }
    if (distance < best_distance) {
      best_distance = distance;
      best = id;
    }
  }
  return best;
}

const std::vector<std::string>& strategy_names() {
  static const std::vector<std::string> names{"bayes_subspace", "bayes_opt",      "exhaustive",
                                              "random",         "pattern_search", "differential_evolution"};
  return names;
}

std::string_view default_strategy_name() {
  return strategy_names().front();
}

std::unique_ptr<strategy> make_strategy(std::string_view name, const enumerated_space& space,
                                        strategy_options options) {
  if (name == "exhaustive") return detail::make_exhaustive(space, options);
  if (name == "random") return detail::make_random(space, options);
  if (name == "pattern_search") return detail::make_pattern_search(space, options);
  if (name == "differential_evolution") return detail::make_differential_evolution(space, options);
  if (name == "bayes_opt") return detail::make_bayes_opt(space, options);
  if (name == "bayes_subspace") return detail::make_bayes_subspace(space, options);
  throw usage_error(
      fmt::format("unknown strategy '{}' (valid: {})", name, fmt::join(strategy_names(), ", ")));
}

}  // namespace kbench::tune
