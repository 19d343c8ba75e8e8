// exhaustive: every valid config in enumeration order. The reference for small spaces, and the check that a
// search can reach every config.

#include "strategies.hpp"

namespace kbench::tune::detail {

namespace {

class exhaustive final : public strategy {
 public:
  using strategy::strategy;
  [[nodiscard]] std::string_view name() const override { return "exhaustive"; }

 private:
  std::optional<config_id> do_ask() override { return m_next++; }
  void do_tell(const evaluation& /*result*/) override {}

  config_id m_next = 0;
};

}  // namespace

std::unique_ptr<strategy> make_exhaustive(const enumerated_space& space, strategy_options options) {
  return std::make_unique<exhaustive>(space, options);
}

}  // namespace kbench::tune::detail
