// bayes_subspace: Bayesian optimization whose Gaussian-process surrogate and acquisition both follow the
// split of a space into block-size parameters (the work-group shape) and the others (tiling, flags, ...).
//
// Why this design: on the shared brute-forced spaces the landscape is rugged and deceptive (few configs near
// the optimum, in one combination of the non-block parameters, with traps around it). log(time) is close to
// additive in two groups, block sizes and everything else, so the kernel mixes an additive and a product term
// over the two; aligned block sizes can be much faster than their neighbours, so the model also sees each
// block size's power-of-two alignment; subspace proposals through the best config find what a whole-space
// bound reaches slowly; and a prior favours the block shapes the CUDA Best Practices Guide suggests starting
// from. The simulations that chose each rule, and the ones that were dropped: docs/autotuning.md.
//
// Model: a GP over the configs. Inputs: each parameter's value index scaled to [0, 1] (an enum of more than
// two values: 0/1 mismatch), and for a block-size parameter whose values are not all powers of two also the
// value's power-of-two alignment (add_alignment_feature); target: the speed relative to the fastest config
// seen, -t_best / t, which flattens the slow tail the search does not care about and spreads out the
// near-optimal configs it must rank; a failed config gets the slowest speed seen. Kernel:
//     k = s2 * (w * (kA + kB) / 2 + (1 - w) * kA * kB)
// with kA, kB Matern 5/2 with one length scale per input over the block-size inputs and over the
// others (a plain Matern 5/2 over all parameters when either group is empty). Length scales, noise, s2 and w
// are fitted by maximum a posteriori (weak log-normal priors keep a fit on a few points from running off)
// with iRprop- on the analytic gradient, warm-started from the previous fit, at geometrically spaced sizes.
//
// Search: the default config, then a few random ones; then the lowest confidence bound (kappa 3) over the
// whole space, except that every third proposal comes from a subspace through the best config so far:
// during the first 60% of the budget, the configs whose other settings differ from it in one parameter,
// with any block shape; during the last 40%, its other settings with any block shape (power-of-two block
// sizes first, kappa 1). Every bound favours the preferred block shapes (preferred_shape_bonus). A subspace
// with nothing left to propose falls back to the whole space. With no known budget, the search is in its
// last phase throughout.
//
// Cost: the posterior over N candidates is updated incrementally, O(N n) per evaluation with n observations,
// plus O(N n^2) to rebuild after a refit; a fit is O(n^3) per iteration. Spaces larger than max_pool keep a
// fixed random pool of candidates, to which subspaces and observed configs are added.

#include "gaussian_process.hpp"
#include "strategies.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <span>

namespace kbench::tune::detail {

namespace {

constexpr std::size_t max_pool = 16384;  // candidates kept with an incremental posterior
// Observations in the model; beyond it the model stays as it is (its ranking still picks the next configs),
// which bounds memory (pool x cap doubles) and time for searches without a budget.
constexpr std::size_t model_cap = 400;
constexpr std::size_t fit_cap = 200;  // no refits beyond this many observations (O(n^3) per iteration)
constexpr int fit_iterations = 30;
constexpr double final_phase = 0.4;  // fraction of a known budget that also tries block-shape subspaces
constexpr std::size_t enumerate_cap = 4096;  // a subspace this small is enumerated in a sampled pool
// Acquisition: the lowest lower confidence bound mean - kappa * sd of the standardized target (lower is
// faster). Means of seeds 1..100 and 1001..1100 at 50 / 100 evaluations, against expected improvement with a
// 0.1 sd margin: A100 0.824/0.938 -> 0.845/0.962, A4000 0.930/0.985 -> 0.940/0.981. Expected improvement
// keeps refining block shapes around an incumbent in a trap; the bound ranks the unexplored settings of the
// other parameters by what they might reach. kappa 2: A100 0.823/0.963, A4000 0.904/0.959; 4: A100
// 0.827/0.946, A4000 0.940/0.988; 1 and 5 were worse (seeds 1..100 only for 1 and 5).
constexpr double confidence_kappa = 3.0;
// In the incumbent's block-shape subspace of the last 40% of the budget: a smaller kappa, for the mean
// weighs more when the search is refining around the incumbent's setting (see the header comment).
constexpr double block_shape_kappa = 1.0;
// A prior on block shapes (see the header comment): a config whose block sizes are powers of two and whose
// threads per block (the product of the block sizes) lie in [128, 256] has its lower bound lowered by
// preferred_shape_bonus [standardized target units]. 128-256 threads is the range the CUDA C++ Best
// Practices Guide ("Thread and Block Heuristics") gives as a good start for experimenting with block sizes.
constexpr double preferred_threads_low = 128;
constexpr double preferred_threads_high = 256;
constexpr double preferred_shape_bonus = 0.25;
// Priors (MAP fit): log length ~ N(log 0.5, 1), log noise ~ N(log 0.01, 1.5) above noise_floor,
// log s2 ~ N(0, 1), logit w ~ N(0, 1.5). Units: scaled index, standardized target.
constexpr double prior_length = 0.5;
constexpr double prior_length_sd = 1.0;
constexpr double prior_noise = 0.01;
constexpr double prior_noise_sd = 1.5;
constexpr double prior_signal_sd = 1.0;
constexpr double prior_mix_sd = 1.5;
constexpr double noise_floor = 1e-4;
double sigmoid(double x) {
  return 1 / (1 + std::exp(-x));
}

enum class subspace {
  whole,               // every config
  neighbour_settings,  // one of the incumbent's other values changed, any block-size values
  same_others,         // the incumbent's other values, any block-size values (power-of-two ones first)
};

class bayes_subspace final : public strategy {
 public:
  bayes_subspace(const enumerated_space& space, strategy_options options) : strategy(space, options) {
    for (std::size_t d = 0; d < space.dimensions(); ++d) {
      const parameter& p = space.parameters()[d];
      if (p.size() < 2) continue;  // a single value carries no information
      m_dims.push_back(d);
      m_categorical.push_back(!p.is_ordered() && p.size() > 2);
      m_block.push_back(p.is_block_size());
    }
    const auto blocks = static_cast<std::size_t>(std::count(m_block.begin(), m_block.end(), true));
    m_grouped = blocks > 0 && blocks < m_dims.size();
    for (std::size_t k = 0; k < m_dims.size(); ++k) {
      m_inputs.push_back({k, false, m_categorical[k], m_block[k], 0, 1});
    }
    for (std::size_t k = 0; k < m_dims.size(); ++k) {
      if (m_block[k]) add_alignment_feature(k);
    }
    m_log_lengths.assign(m_inputs.size(), std::log(prior_length));
    m_inverse_l2.assign(m_inputs.size(), 1 / (prior_length * prior_length));
    const std::size_t budget = options.max_evals == 0 ? 100 : options.max_evals;
    m_initial = std::clamp<std::size_t>(budget / 10, 2, 10);
    m_in_pool.assign(space.size(), -1);
    if (space.size() <= max_pool) {
      for (config_id id = 0; id < space.size(); ++id) add_to_pool(id);
    }
  }
  [[nodiscard]] std::string_view name() const override { return "bayes_subspace"; }

 private:
  std::optional<config_id> do_ask() override {
    if (m_pool.empty()) {  // large space: a fixed random pool, drawn at the first ask
      for (std::size_t i = 0; i < max_pool; ++i) {
        const auto id = static_cast<config_id>(uniform(space().size()));
        if (m_in_pool[id] < 0) add_to_pool(id);
      }
    }
    if (m_observed.size() < m_initial || m_best < 0) {
      if (m_observed.empty()) {
        if (const auto d = space().default_id(); d && !was_proposed(*d)) return *d;
      }
      return random_unproposed();
    }
    const std::size_t n_model = std::min(m_observed.size(), model_cap);
    if (n_model >= m_next_fit && n_model <= fit_cap) {
      fit();
      // Fits get dearer as observations grow (O(n^3) per iteration, O(N n^2) to rebuild): refit when the
      // observations have grown by half (a third or a quarter cost 1.6-2x the time for the same figures).
      m_next_fit = n_model + std::max<std::size_t>(5, n_model / 2);
    }

    const subspace kind = next_subspace();
    std::vector<std::size_t> candidates = subspace_candidates(kind);
    double kappa = kind == subspace::same_others ? block_shape_kappa : confidence_kappa;
    if (candidates.empty()) {
      candidates = subspace_candidates(subspace::whole);
      kappa = confidence_kappa;
    }
    if (const auto pick = best_lower_bound(candidates, kappa)) return pick;
    return random_unproposed();
  }

  void do_tell(const evaluation& result) override {
    const bool ok = result.ok() && std::isfinite(result.time_ms) && result.time_ms > 0;
    m_observed.push_back(result.id);
    m_ok.push_back(ok);
    m_log_time.push_back(ok ? std::log(result.time_ms) : 0.0);
    if (ok && (m_best < 0 || m_log_time.back() < m_log_time[static_cast<std::size_t>(m_best)])) {
      m_best = static_cast<std::ptrdiff_t>(m_observed.size() - 1);
    }
    if (m_posterior.observations() < model_cap) {
      ensure_in_pool(result.id);
      append_to_factor();
    }
  }

  // Which candidates the next proposal is chosen from (see the header comment).
  [[nodiscard]] subspace next_subspace() const {
    const std::size_t step = m_observed.size();
    const std::size_t budget = options().max_evals;
    const bool finishing = budget == 0 || static_cast<double>(budget - std::min(budget, step)) <=
                                              final_phase * static_cast<double>(budget);
    if (finishing) return step % 3 == 1 ? subspace::same_others : subspace::whole;
    return step % 3 == 2 ? subspace::neighbour_settings : subspace::whole;
  }

  // Pool positions of the unproposed candidates in `kind` through the best config so far.
  [[nodiscard]] std::vector<std::size_t> subspace_candidates(subspace kind) {
    std::vector<std::size_t> result;
    if (kind == subspace::whole) {
      for (std::size_t i = 0; i < m_pool.size(); ++i) {
        if (!was_proposed(m_pool[i])) result.push_back(i);
      }
      return result;
    }
    const auto incumbent = space().coordinates(m_observed[static_cast<std::size_t>(m_best)]);
    if (kind == subspace::neighbour_settings) return neighbour_setting_candidates(incumbent);
    return prefer_power_of_two_blocks(same_others_candidates(incumbent));
  }

  // Pool positions of the unproposed configs whose other (non-block) values differ from the incumbent's in
  // exactly one parameter, with any block shape. (A large space's sampled pool holds a sample of this
  // subspace, which is not enumerated as the block-shape subspace is: it spans every block shape.)
  [[nodiscard]] std::vector<std::size_t> neighbour_setting_candidates(
      std::span<const std::uint32_t> incumbent) const {
    std::vector<std::size_t> result;
    for (std::size_t i = 0; i < m_pool.size(); ++i) {
      if (was_proposed(m_pool[i])) continue;
      const auto c = space().coordinates(m_pool[i]);
      std::size_t changed = 0;
      for (std::size_t k = 0; k < m_dims.size(); ++k) {
        if (!m_block[k] && c[m_dims[k]] != incumbent[m_dims[k]]) ++changed;
      }
      if (changed == 1) result.push_back(i);
    }
    return result;
  }

  // The candidates whose block sizes are all powers of two, when there are any; otherwise all of them.
  [[nodiscard]] std::vector<std::size_t> prefer_power_of_two_blocks(
      std::vector<std::size_t> candidates) const {
    std::vector<std::size_t> aligned;
    for (const std::size_t i : candidates) {
      if (block_shape_of(m_pool[i]).all_powers_of_two) aligned.push_back(i);
    }
    return aligned.empty() ? candidates : aligned;
  }

  struct block_shape {
    bool all_powers_of_two = true;
    double threads = 1;  // product of the numeric block-size values (threads per block on a GPU)
    bool any = false;    // the space has a numeric block-size parameter
  };
  [[nodiscard]] block_shape block_shape_of(config_id id) const {
    const auto c = space().coordinates(id);
    block_shape shape;
    for (std::size_t k = 0; k < m_dims.size(); ++k) {
      const parameter& p = space().parameters()[m_dims[k]];
      if (!m_block[k] || p.kind() == parameter_kind::enumeration || p.kind() == parameter_kind::boolean)
        continue;
      const std::int64_t value = p.values()[c[m_dims[k]]];
      shape.any = true;
      shape.threads *= static_cast<double>(value);
      shape.all_powers_of_two =
          shape.all_powers_of_two && value > 0 && std::has_single_bit(static_cast<std::uint64_t>(value));
    }
    return shape;
  }

  // Whether the block-shape prior favours this config (see preferred_shape_bonus).
  [[nodiscard]] bool has_preferred_block_shape(config_id id) const {
    const block_shape shape = block_shape_of(id);
    return shape.any && shape.all_powers_of_two && shape.threads >= preferred_threads_low &&
           shape.threads <= preferred_threads_high;
  }

  // Pool positions of the unproposed configs with the incumbent's other values and any block shape.
  [[nodiscard]] std::vector<std::size_t> same_others_candidates(std::span<const std::uint32_t> incumbent) {
    std::vector<std::size_t> result;
    // Parameters free to vary in this subspace.
    std::vector<std::size_t> free;
    for (std::size_t k = 0; k < m_dims.size(); ++k) {
      if (m_block[k]) free.push_back(m_dims[k]);
    }
    if (free.empty()) return result;
    // In a sampled pool, enumerate a small subspace so that it is searched whole.
    if (m_pool.size() < space().size()) {
      std::uint64_t count = 1;
      for (const std::size_t d : free) {
        count *= space().parameters()[d].size();
        if (count > enumerate_cap) break;
      }
      if (count <= enumerate_cap) {
        point p(incumbent.begin(), incumbent.end());
        for (std::uint64_t index = 0; index < count; ++index) {
          std::uint64_t rest = index;
          for (const std::size_t d : free) {
            const std::size_t size = space().parameters()[d].size();
            p[d] = static_cast<std::uint32_t>(rest % size);
            rest /= size;
          }
          if (const auto id = space().find(p); id && !was_proposed(*id)) {
            ensure_in_pool(*id);
            result.push_back(static_cast<std::size_t>(m_in_pool[*id]));
          }
        }
        return result;
      }
    }
    for (std::size_t i = 0; i < m_pool.size(); ++i) {
      if (was_proposed(m_pool[i])) continue;
      const auto c = space().coordinates(m_pool[i]);
      bool inside = true;
      for (std::size_t k = 0; k < m_dims.size() && inside; ++k) {
        const std::size_t d = m_dims[k];
        if (std::find(free.begin(), free.end(), d) == free.end() && c[d] != incumbent[d]) inside = false;
      }
      if (inside) result.push_back(i);
    }
    return result;
  }

  // The candidate with the lowest lower confidence bound, mean - kappa sd, of the standardized target.
  [[nodiscard]] std::optional<config_id> best_lower_bound(const std::vector<std::size_t>& candidates,
                                                          double kappa) {
    if (candidates.empty() || std::find(m_ok.begin(), m_ok.end(), true) == m_ok.end()) return std::nullopt;
    const std::vector<double> y = standardized_targets();
    // Posterior mean = v^T beta with beta = L^-1 y; variance = s2 - |v|^2, v = L^-1 k(observations, x).
    const std::vector<double> mean = m_posterior.means(candidates, m_posterior.whiten(y));
    double lowest = std::numeric_limits<double>::infinity();
    std::optional<config_id> pick;
    for (std::size_t c = 0; c < candidates.size(); ++c) {
      const std::size_t i = candidates[c];
      const double sd = std::sqrt(std::max(m_signal - m_posterior.explained(i), 1e-12));
      const double bound = mean[c] - kappa * sd - (m_preferred_shape[i] ? preferred_shape_bonus : 0.0);
      if (bound < lowest) {
        lowest = bound;
        pick = m_pool[i];
      }
    }
    return pick;
  }

  // For a block-size parameter whose values are not all powers of two (e.g. 16, 32, 48, ..., 256), a second
  // feature: the value's alignment, log2 of the largest power of two dividing it, scaled to [0, 1]. A GPU
  // runs threads in warps and moves memory in aligned segments, so 32 and 64 can be much faster than their
  // neighbours 48 and 80, which the value's position alone cannot express. On the two shared spaces this
  // raised the mean fraction of the optimum at 100 evaluations from 0.884 to 0.926 (A100) and from 0.944 to
  // 0.964 (A4000), seeds 1..100; seeds 1001..1100 gave the same gains (0.898 -> 0.934, 0.943 -> 0.966).
  void add_alignment_feature(std::size_t k) {
    const parameter& p = space().parameters()[m_dims[k]];
    if (p.kind() == parameter_kind::enumeration || p.kind() == parameter_kind::boolean) return;
    int low = 64;
    int high = 0;
    bool all_powers = true;
    for (const std::int64_t v : p.values()) {
      if (v <= 0) return;
      const auto u = static_cast<std::uint64_t>(v);
      low = std::min(low, std::countr_zero(u));
      high = std::max(high, std::countr_zero(u));
      all_powers = all_powers && std::has_single_bit(u);
    }
    // Powers of two only: the alignment is the position again.
    if (all_powers || high == low) return;
    m_inputs.push_back({k, true, false, true, static_cast<double>(low), static_cast<double>(high - low)});
  }

  void add_to_pool(config_id id) {
    m_in_pool[id] = static_cast<std::ptrdiff_t>(m_pool.size());
    m_pool.push_back(id);
    const auto c = space().coordinates(id);
    for (const input& f : m_inputs) {
      const std::size_t d = m_dims[f.dim];
      const parameter& p = space().parameters()[d];
      if (f.alignment) {
        const int a = std::countr_zero(static_cast<std::uint64_t>(p.values()[c[d]]));
        m_features.push_back((a - f.low) / f.span);
      } else {
        m_features.push_back(f.categorical ? static_cast<double>(c[d])
                                           : static_cast<double>(c[d]) / static_cast<double>(p.size() - 1));
      }
    }
    m_preferred_shape.push_back(has_preferred_block_shape(id));
    const std::size_t i = m_pool.size() - 1;
    const std::span<const std::size_t> observed = m_posterior.observed_at();
    std::vector<double> kernel_to_observations(observed.size());
    for (std::size_t j = 0; j < observed.size(); ++j) kernel_to_observations[j] = kernel(i, observed[j]);
    m_posterior.add_candidate(kernel_to_observations);
  }

  // A config outside the pool (large spaces) joins it.
  void ensure_in_pool(config_id id) {
    if (m_in_pool[id] < 0) add_to_pool(id);
  }

  // Squared distances in length-scale units within the block-size group (a) and the others (b).
  void distances(const double* fa, const double* fb, double& ra, double& rb) const {
    ra = 0;
    rb = 0;
    for (std::size_t k = 0; k < m_inputs.size(); ++k) {
      const double delta = m_inputs[k].categorical ? (fa[k] != fb[k] ? 1.0 : 0.0) : fa[k] - fb[k];
      (m_inputs[k].block ? ra : rb) += delta * delta * m_inverse_l2[k];
    }
  }

  // Kernel between pool positions a and b under the current hyperparameters.
  [[nodiscard]] double kernel(std::size_t a, std::size_t b) const {
    const std::size_t dims = m_inputs.size();
    double ra = 0;
    double rb = 0;
    distances(&m_features[a * dims], &m_features[b * dims], ra, rb);
    if (!m_grouped) return m_signal * matern52(ra + rb);
    const double ka = matern52(ra);
    const double kb = matern52(rb);
    return m_signal * (m_mix * (ka + kb) / 2 + (1 - m_mix) * ka * kb);
  }

  // Adds the newest observation to the model.
  void append_to_factor() {
    const auto at = static_cast<std::size_t>(m_in_pool[m_observed[m_posterior.observations()]]);
    std::vector<double> column(m_pool.size());
    for (std::size_t i = 0; i < column.size(); ++i) column[i] = kernel(i, at);
    m_posterior.add_observation(at, m_signal + m_noise, std::move(column));
  }

  // Speed relative to the fastest config seen, -t_best / t (failures: the slowest seen), standardized to
  // mean 0 and sd 1, for the observations in the model.
  [[nodiscard]] std::vector<double> standardized_targets() const {
    const std::size_t n = m_posterior.observations();
    const double fastest = m_log_time[static_cast<std::size_t>(m_best)];
    double slowest = fastest;
    for (std::size_t j = 0; j < m_log_time.size(); ++j) {
      if (m_ok[j]) slowest = std::max(slowest, m_log_time[j]);
    }
    std::vector<double> y(n);
    for (std::size_t j = 0; j < n; ++j) y[j] = -std::exp(fastest - (m_ok[j] ? m_log_time[j] : slowest));
    standardize(y);
    return y;
  }

  // Maximum a posteriori hyperparameters by iRprop- on the log posterior and its analytic gradient, then a
  // rebuild of the factor and the candidate columns.
  void fit() {
    const std::vector<double> y = standardized_targets();
    const std::size_t n = y.size();
    const std::size_t dims = m_inputs.size();
    // theta: log length scales, log(noise - floor), log s2, and logit w when grouped.
    const std::size_t count = dims + (m_grouped ? 3 : 2);
    std::vector<double> theta(m_log_lengths);
    theta.push_back(std::log(m_noise - noise_floor));
    theta.push_back(std::log(m_signal));
    if (m_grouped) theta.push_back(std::log(m_mix / (1 - m_mix)));

    // Squared index distance per parameter for each pair i > j (lower triangle, row-major).
    const std::size_t pairs = n * (n - 1) / 2;
    std::vector<double> delta2(dims * pairs);
    {
      std::size_t p = 0;
      for (std::size_t i = 0; i < n; ++i) {
        const double* fi = &m_features[static_cast<std::size_t>(m_in_pool[m_observed[i]]) * dims];
        for (std::size_t j = 0; j < i; ++j, ++p) {
          const double* fj = &m_features[static_cast<std::size_t>(m_in_pool[m_observed[j]]) * dims];
          for (std::size_t k = 0; k < dims; ++k) {
            const double delta = m_inputs[k].categorical ? (fi[k] != fj[k] ? 1.0 : 0.0) : fi[k] - fj[k];
            delta2[k * pairs + p] = delta * delta;
          }
        }
      }
    }
    std::vector<double> kmat(n * n);
    std::vector<double> l(n * n);
    std::vector<double> u(n * n);        // L^-T
    std::vector<double> slope_a(pairs);  // d k / d log l_d = slope * delta_d^2 / l_d^2 (group a or b)
    std::vector<double> slope_b(pairs);
    std::vector<double> mix_slope(pairs);  // d k / d logit w
    std::vector<double> inverse_l2(dims);
    std::vector<double> alpha(n);
    std::vector<double> z(n);

    const auto log_posterior = [&](const std::vector<double>& th, std::vector<double>& grad) {
      const double noise = std::exp(th[dims]) + noise_floor;
      const double s2 = std::exp(th[dims + 1]);
      const double w = m_grouped ? sigmoid(th[dims + 2]) : 0.0;
      for (std::size_t k = 0; k < dims; ++k) inverse_l2[k] = std::exp(-2 * th[k]);
      std::size_t p = 0;
      for (std::size_t i = 0; i < n; ++i) {
        kmat[i * n + i] = s2 + noise;
        for (std::size_t j = 0; j < i; ++j, ++p) {
          double ra = 0;
          double rb = 0;
          for (std::size_t k = 0; k < dims; ++k)
            (m_inputs[k].block ? ra : rb) += delta2[k * pairs + p] * inverse_l2[k];
          if (!m_grouped) {
            kmat[i * n + j] = s2 * matern52(ra + rb);
            slope_a[p] = slope_b[p] = s2 * matern52_slope(ra + rb);
          } else {
            const double ka = matern52(ra);
            const double kb = matern52(rb);
            kmat[i * n + j] = s2 * (w * (ka + kb) / 2 + (1 - w) * ka * kb);
            slope_a[p] = s2 * (w / 2 + (1 - w) * kb) * matern52_slope(ra);
            slope_b[p] = s2 * (w / 2 + (1 - w) * ka) * matern52_slope(rb);
            mix_slope[p] = s2 * w * (1 - w) * ((ka + kb) / 2 - ka * kb);
          }
        }
      }
      if (!lower_cholesky(kmat, n, l)) return -std::numeric_limits<double>::infinity();
      double log_det = 0;
      for (std::size_t i = 0; i < n; ++i) {
        double s = y[i];
        for (std::size_t m = 0; m < i; ++m) s -= l[i * n + m] * z[m];
        z[i] = s / l[i * n + i];
        log_det += std::log(l[i * n + i]);
      }
      double quad = 0;
      for (std::size_t i = 0; i < n; ++i) quad += z[i] * z[i];
      for (std::size_t i = n; i-- > 0;) {
        double s = z[i];
        for (std::size_t m = i + 1; m < n; ++m) s -= l[m * n + i] * alpha[m];
        alpha[i] = s / l[i * n + i];
      }
      // K^-1 = U U^T with U = L^-T; the gradient needs it whole: d log p / d theta = tr((alpha alpha^T -
      // K^-1) dK) / 2. Row j of U is column j of L^-1 (forward substitution), so every loop below runs
      // over contiguous memory.
      for (std::size_t j = 0; j < n; ++j) {
        double* uj = &u[j * n];
        std::fill(uj, uj + j, 0.0);
        for (std::size_t i = j; i < n; ++i) {
          double s = i == j ? 1.0 : 0.0;
          const double* li = &l[i * n];
          for (std::size_t m = j; m < i; ++m) s -= li[m] * uj[m];
          uj[i] = s / li[i];
        }
      }
      std::fill(grad.begin(), grad.end(), 0.0);
      double trace = 0;
      double signal = 0;
      p = 0;
      for (std::size_t i = 0; i < n; ++i) {
        const double* ui = &u[i * n];
        double kinv_ii = 0;
        for (std::size_t m = i; m < n; ++m) kinv_ii += ui[m] * ui[m];
        const double wii = alpha[i] * alpha[i] - kinv_ii;
        trace += wii;
        signal += wii * s2;
        for (std::size_t j = 0; j < i; ++j, ++p) {
          const double* uj = &u[j * n];
          double kinv_ij = 0;
          for (std::size_t m = i; m < n; ++m) kinv_ij += ui[m] * uj[m];
          const double wij = 2 * (alpha[i] * alpha[j] - kinv_ij);  // both triangles
          signal += wij * kmat[i * n + j];
          const double ga = wij * slope_a[p];
          const double gb = wij * slope_b[p];
          for (std::size_t k = 0; k < dims; ++k) {
            grad[k] += (m_inputs[k].block ? ga : gb) * delta2[k * pairs + p];
          }
          if (m_grouped) grad[dims + 2] += wij * mix_slope[p];
        }
      }
      double value = -0.5 * quad - log_det;
      for (std::size_t k = 0; k < dims; ++k) {
        grad[k] *= 0.5 * inverse_l2[k];
        const double offset = th[k] - std::log(prior_length);
        value -= offset * offset / (2 * prior_length_sd * prior_length_sd);
        grad[k] -= offset / (prior_length_sd * prior_length_sd);
      }
      grad[dims] = 0.5 * trace * (noise - noise_floor);
      const double noise_offset = th[dims] - std::log(prior_noise);
      value -= noise_offset * noise_offset / (2 * prior_noise_sd * prior_noise_sd);
      grad[dims] -= noise_offset / (prior_noise_sd * prior_noise_sd);
      grad[dims + 1] = 0.5 * signal;
      value -= th[dims + 1] * th[dims + 1] / (2 * prior_signal_sd * prior_signal_sd);
      grad[dims + 1] -= th[dims + 1] / (prior_signal_sd * prior_signal_sd);
      if (m_grouped) {
        grad[dims + 2] *= 0.5;
        value -= th[dims + 2] * th[dims + 2] / (2 * prior_mix_sd * prior_mix_sd);
        grad[dims + 2] -= th[dims + 2] / (prior_mix_sd * prior_mix_sd);
      }
      return value;
    };

    // iRprop-: a step size per parameter that grows while its gradient keeps its sign and halves when it
    // flips; robust to the badly scaled gradients of a likelihood without line searches.
    std::vector<double> grad(count);
    std::vector<double> previous(count, 0.0);
    std::vector<double> step(count, 0.2);
    std::vector<double> best_theta = theta;
    double best_value = log_posterior(theta, grad);
    for (int iteration = 0; iteration < fit_iterations && std::isfinite(best_value); ++iteration) {
      for (std::size_t q = 0; q < count; ++q) {
        if (grad[q] * previous[q] > 0) {
          step[q] = std::min(step[q] * 1.2, 1.0);
        } else if (grad[q] * previous[q] < 0) {
          step[q] = std::max(step[q] * 0.5, 1e-3);
          grad[q] = 0;
        }
        theta[q] += grad[q] > 0 ? step[q] : grad[q] < 0 ? -step[q] : 0.0;
        // Bounds: length scales and variances within [1e-3, 50], the mix logit within [-6, 6].
        theta[q] = q < dims + 2 ? std::clamp(theta[q], std::log(1e-3), std::log(50.0))
                                : std::clamp(theta[q], -6.0, 6.0);
        previous[q] = grad[q];
      }
      const double value = log_posterior(theta, grad);
      if (!std::isfinite(value)) break;
      if (value > best_value) {
        best_value = value;
        best_theta = theta;
      }
    }
    if (!std::isfinite(best_value)) return;  // keep the previous hyperparameters
    set_hyperparameters(best_theta);
    rebuild();
  }

  void set_hyperparameters(const std::vector<double>& theta) {
    const std::size_t dims = m_inputs.size();
    m_log_lengths.assign(theta.begin(), theta.begin() + static_cast<std::ptrdiff_t>(dims));
    for (std::size_t k = 0; k < dims; ++k) m_inverse_l2[k] = std::exp(-2 * theta[k]);
    m_noise = std::exp(theta[dims]) + noise_floor;
    m_signal = std::exp(theta[dims + 1]);
    if (m_grouped) m_mix = sigmoid(theta[dims + 2]);
  }

  // Recomputes the posterior for new hyperparameters.
  void rebuild() {
    m_posterior.rebuild(m_signal + m_noise, [this](std::size_t at, std::span<double> column) {
      for (std::size_t i = 0; i < column.size(); ++i) column[i] = kernel(i, at);
    });
  }

  std::vector<std::size_t> m_dims;  // parameters with more than one value
  std::vector<bool> m_categorical;  // per m_dims entry: an enum of more than two values (0/1 mismatch)
  std::vector<bool> m_block;        // per m_dims entry: a block-size parameter
  // The model's inputs: one per m_dims entry, then the alignment features (add_alignment_feature).
  struct input {
    std::size_t dim;   // index into m_dims
    bool alignment;    // the value's alignment rather than its position
    bool categorical;  // 0/1 mismatch distance
    bool block;        // in the block-size group of the kernel
    double low;        // alignment: the lowest log2 alignment among the values
    double span;       // alignment: highest - lowest
  };
  std::vector<input> m_inputs;
  bool m_grouped = false;     // both groups non-empty: the mixed kernel; otherwise a plain Matern
  std::size_t m_initial = 0;  // random evaluations before the surrogate is used
  std::size_t m_next_fit = 0;

  // Hyperparameters, with the priors' centres before the first fit.
  std::vector<double> m_log_lengths;  // [log scaled index units]
  std::vector<double> m_inverse_l2;
  double m_noise = prior_noise + noise_floor;
  double m_signal = 1;
  double m_mix = 0.5;

  std::vector<config_id> m_pool;          // candidates with an incremental posterior
  std::vector<std::ptrdiff_t> m_in_pool;  // id -> position in m_pool, -1 when absent
  std::vector<double> m_features;         // m_pool.size() x m_inputs.size()
  std::vector<bool> m_preferred_shape;    // per candidate: has_preferred_block_shape

  std::vector<config_id> m_observed;  // in evaluation order; the first model_cap are in the model
  std::vector<bool> m_ok;
  std::vector<double> m_log_time;  // log([ms]); unused when !ok
  std::ptrdiff_t m_best = -1;      // fastest ok observation

  pool_posterior m_posterior;  // over m_pool; its observations are the first model_cap of m_observed
};

}  // namespace

std::unique_ptr<strategy> make_bayes_subspace(const enumerated_space& space, strategy_options options) {
  return std::make_unique<bayes_subspace>(space, options);
}

}  // namespace kbench::tune::detail
