#pragma once
// Search strategies: an ask/tell interface over the valid configs of an enumerated_space.
// The driver (search.hpp) alternates ask() and tell(); the base class guarantees that no config is proposed
// twice, and every strategy only proposes ids of valid configs. A strategy returns nullopt from ask() only
// when every valid config has been proposed, so with an unlimited budget every strategy visits the whole
// space.
//
// Names (make_strategy): bayes_subspace (the default), bayes_opt, exhaustive, random, pattern_search,
// differential_evolution.

#include <kbench/tune/enumerated_space.hpp>
#include <kbench/tune/evaluation.hpp>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kbench::tune {

struct strategy_options {
  std::uint64_t seed = 0;  // same seed, same space and same evaluations -> the same proposals
  std::size_t max_evals =
      0;  // the evaluation budget if known (0: unknown); strategies may size themselves to it
};

class strategy {
 public:
  strategy(const enumerated_space& space, strategy_options options);
  virtual ~strategy() = default;
  strategy(const strategy&) = delete;
  strategy& operator=(const strategy&) = delete;

  /// The next config to evaluate: valid, never proposed before; nullopt once all have been proposed.
  /// Throws kbench::error if a strategy breaks that contract (a bug in the strategy).
  [[nodiscard]] std::optional<config_id> ask();
  /// The outcome of the oldest config returned by ask() and not yet told; a failure has a status and no
  /// time. Several asks may precede the tells (the tuner compiles a batch of configs in parallel); the tells
  /// then come in the order of the asks.
  void tell(const evaluation& result);

  [[nodiscard]] virtual std::string_view name() const = 0;
  [[nodiscard]] const enumerated_space& space() const { return m_space; }
  [[nodiscard]] std::size_t proposed_count() const { return m_proposed_count; }

 protected:
  /// Returns an unproposed id, or nullopt only when all ids have been proposed.
  [[nodiscard]] virtual std::optional<config_id> do_ask() = 0;
  virtual void do_tell(const evaluation& result) = 0;

  [[nodiscard]] bool was_proposed(config_id id) const { return m_proposed[id]; }
  [[nodiscard]] bool all_proposed() const { return m_proposed_count == m_space.size(); }
  /// A uniformly random unproposed id (nullopt when none is left), for starts, restarts and fallbacks.
  [[nodiscard]] std::optional<config_id> random_unproposed();
  /// The unproposed id closest to `target` (value indices as reals, each axis scaled to [0, 1]); ties go to
  /// the lowest id.
  [[nodiscard]] std::optional<config_id> nearest_unproposed(std::span<const double> target) const;
  /// Uniform integer in [0, n), from the strategy's seeded generator (the same on every platform).
  [[nodiscard]] std::uint64_t uniform(std::uint64_t n);
  /// Uniform real in [0, 1).
  [[nodiscard]] double uniform_real();
  [[nodiscard]] const strategy_options& options() const { return m_options; }

 private:
  const enumerated_space& m_space;
  strategy_options m_options;
  std::uint64_t m_rng_state[4];  // xoshiro256**
  std::vector<bool> m_proposed;
  std::size_t m_proposed_count = 0;
  std::deque<config_id> m_outstanding;  // asked, not yet told, oldest first
};

/// Builds a strategy by name; throws usage_error listing the valid names for an unknown one.
[[nodiscard]] std::unique_ptr<strategy> make_strategy(std::string_view name, const enumerated_space& space,
                                                      strategy_options options);
/// Every strategy name, the default first.
[[nodiscard]] const std::vector<std::string>& strategy_names();
/// The strategy `kbench run --effort quick|full` uses: bayes_subspace (best on the shared recorded spaces).
[[nodiscard]] std::string_view default_strategy_name();

}  // namespace kbench::tune
