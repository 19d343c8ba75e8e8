// pattern_search: opportunistic compass search with Hooke-Jeeves pattern moves on the neighbourhood of
// enumerated_space (one step in one parameter, pairs of steps in two block-size parameters). From the default
// config (then random restarts), it polls the current point's unvisited neighbours in random order and moves
// to the first that is faster; after a move it first tries the same step again (the pattern move). When no
// neighbour is faster the point is a local optimum and the search restarts from a random config.

#include "score.hpp"
#include "strategies.hpp"

#include <deque>
#include <limits>

namespace kbench::tune::detail {

namespace {

class pattern_search final : public strategy {
 public:
  using strategy::strategy;
  [[nodiscard]] std::string_view name() const override { return "pattern_search"; }

 private:
  std::optional<config_id> do_ask() override {
    while (!m_poll.empty()) {
      const config_id id = m_poll.front();
      m_poll.pop_front();
      if (!was_proposed(id)) return id;
    }
    // Start or restart: the default first, then random configs.
    m_restarting = true;
    if (!m_started) {
      m_started = true;
      if (const auto d = space().default_id(); d && !was_proposed(*d)) return *d;
    }
    return random_unproposed();
  }

  void do_tell(const evaluation& result) override {
    const double s = score(result);
    if (m_restarting) {
      m_restarting = false;
      if (s == std::numeric_limits<double>::infinity()) return;  // a failed start: restart again
      move_to(result.id, s, std::nullopt);
      return;
    }
    if (s < m_current_score) move_to(result.id, s, m_current);
  }

  void move_to(config_id id, double s, std::optional<config_id> from) {
    m_current = id;
    m_current_score = s;
    m_poll.clear();
    if (from) {
      // Pattern move: repeat the step that just paid off (x + (x - from)), when it lands on a valid config.
      const auto a = space().coordinates(id);
      const auto b = space().coordinates(*from);
      point next(a.size());
      bool in_range = true;
      for (std::size_t d = 0; d < a.size(); ++d) {
        const std::int64_t v = 2 * std::int64_t{a[d]} - std::int64_t{b[d]};
        if (v < 0 || v >= static_cast<std::int64_t>(space().parameters()[d].size())) in_range = false;
        next[d] = static_cast<std::uint32_t>(std::max<std::int64_t>(v, 0));
      }
      // An unordered parameter's "step" is not a direction; only repeat moves in ordered parameters.
      for (std::size_t d = 0; d < a.size(); ++d) {
        if (!space().parameters()[d].is_ordered() && a[d] != b[d]) in_range = false;
      }
      if (in_range) {
        if (const auto found = space().find(next); found && !was_proposed(*found)) m_poll.push_back(*found);
      }
    }
    std::vector<config_id> around = space().neighbours(id);
    for (std::size_t i = around.size(); i > 1; --i) std::swap(around[i - 1], around[uniform(i)]);
    for (const config_id n : around) m_poll.push_back(n);
  }

  std::deque<config_id> m_poll;  // neighbours of the current point still to try
  config_id m_current = 0;
  double m_current_score = std::numeric_limits<double>::infinity();  // [ms]
  bool m_started = false;
  bool m_restarting = false;
};

}  // namespace

std::unique_ptr<strategy> make_pattern_search(const enumerated_space& space, strategy_options options) {
  return std::make_unique<pattern_search>(space, options);
}

}  // namespace kbench::tune::detail
