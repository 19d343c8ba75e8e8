// random: uniform sampling without replacement. The baseline every other strategy must beat.

#include "strategies.hpp"

namespace kbench::tune::detail {

namespace {

class random_sampling final : public strategy {
 public:
  using strategy::strategy;
  [[nodiscard]] std::string_view name() const override { return "random"; }

 private:
  std::optional<config_id> do_ask() override { return random_unproposed(); }
  void do_tell(const evaluation& /*result*/) override {}
};

}  // namespace

std::unique_ptr<strategy> make_random(const enumerated_space& space, strategy_options options) {
  return std::make_unique<random_sampling>(space, options);
}

}  // namespace kbench::tune::detail
