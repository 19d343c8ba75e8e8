// differential_evolution: DE/best/1/bin on the value indices, each read as a real coordinate. A population
// (10 configs, fewer for tiny budgets) starts at the default and random configs; each trial mixes the best
// member with the scaled difference of two others (F = 0.7), crosses over with its target (CR = 0.7), and is
// snapped to the nearest unvisited valid config. A trial replaces its target when it is faster.

#include "score.hpp"
#include "strategies.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace kbench::tune::detail {

namespace {

constexpr double mutation_factor = 0.7;  // F
constexpr double crossover_rate = 0.7;   // CR

class differential_evolution final : public strategy {
 public:
  differential_evolution(const enumerated_space& space, strategy_options options) : strategy(space, options) {
    std::size_t size = 10;
    if (options.max_evals != 0) size = std::clamp<std::size_t>(options.max_evals / 5, 4, size);
    m_population_size = std::min(size, space.size());
  }
  [[nodiscard]] std::string_view name() const override { return "differential_evolution"; }

 private:
  struct member {
    config_id id;
    double score;  // [ms]
  };

  std::optional<config_id> do_ask() override {
    if (m_population.size() < m_population_size) {
      if (m_population.empty()) {
        if (const auto d = space().default_id(); d && !was_proposed(*d)) return *d;
      }
      return random_unproposed();
    }
    const std::size_t n = m_population.size();
    const std::size_t target = m_target;
    std::size_t best = 0;
    for (std::size_t i = 1; i < n; ++i) {
      if (m_population[i].score < m_population[best].score) best = i;
    }
    std::size_t r1 = 0;
    std::size_t r2 = 0;
    do r1 = uniform(n);
    while (n > 2 && r1 == target);
    do r2 = uniform(n);
    while (n > 2 && (r2 == r1 || r2 == target));
    const auto b = space().coordinates(m_population[best].id);
    const auto c1 = space().coordinates(m_population[r1].id);
    const auto c2 = space().coordinates(m_population[r2].id);
    const auto t = space().coordinates(m_population[target].id);
    const std::size_t dims = space().dimensions();
    std::vector<double> trial(dims);
    const std::size_t forced = uniform(dims);  // at least one coordinate from the mutant
    for (std::size_t d = 0; d < dims; ++d) {
      const double mutant = b[d] + mutation_factor * (double(c1[d]) - double(c2[d]));
      const double high = static_cast<double>(space().parameters()[d].size() - 1);
      trial[d] = (d == forced || uniform_real() < crossover_rate) ? std::clamp(std::round(mutant), 0.0, high)
                                                                  : static_cast<double>(t[d]);
    }
    return nearest_unproposed(trial);
  }

  void do_tell(const evaluation& result) override {
    const double s = score(result);
    if (m_population.size() < m_population_size) {
      m_population.push_back({result.id, s});
      return;
    }
    if (s < m_population[m_target].score) m_population[m_target] = {result.id, s};
    m_target = (m_target + 1) % m_population.size();
  }

  std::size_t m_population_size = 0;
  std::vector<member> m_population;
  std::size_t m_target = 0;  // the member the next trial competes with
};

}  // namespace

std::unique_ptr<strategy> make_differential_evolution(const enumerated_space& space,
                                                      strategy_options options) {
  return std::make_unique<differential_evolution>(space, options);
}

}  // namespace kbench::tune::detail
