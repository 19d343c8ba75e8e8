#pragma once
// The built-in strategies' factories; make_strategy (strategy.cpp) picks one by name.

#include <kbench/tune/strategy.hpp>

#include <memory>

namespace kbench::tune::detail {

[[nodiscard]] std::unique_ptr<strategy> make_exhaustive(const enumerated_space& space,
                                                        strategy_options options);
[[nodiscard]] std::unique_ptr<strategy> make_random(const enumerated_space& space, strategy_options options);
[[nodiscard]] std::unique_ptr<strategy> make_pattern_search(const enumerated_space& space,
                                                            strategy_options options);
[[nodiscard]] std::unique_ptr<strategy> make_differential_evolution(const enumerated_space& space,
                                                                    strategy_options options);
[[nodiscard]] std::unique_ptr<strategy> make_bayes_opt(const enumerated_space& space,
                                                       strategy_options options);
[[nodiscard]] std::unique_ptr<strategy> make_bayes_subspace(const enumerated_space& space,
                                                            strategy_options options);

}  // namespace kbench::tune::detail
