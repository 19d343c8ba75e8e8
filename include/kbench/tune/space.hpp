#pragma once
// A tuning space as data: parameters, named constraints over a config and the device, and a default config.
// `enumerate` applies the constraints for one device and returns the valid configs, which is what search
// strategies walk on.
//
// **Example**:
//   space s;
//   s.add(parameter::power_of_two("BLOCK_X", 8, 256).block_size())
//       .add(parameter::power_of_two("BLOCK_Y", 1, 16).block_size())
//       .add(parameter::boolean("USE_LOCAL"))
//       .add_constraint("work-group size <= device maximum",
//                       [](const config& c, const device_info& d) {
//                         return c.at("BLOCK_X") * c.at("BLOCK_Y") <= std::int64_t(d.max_work_group_size);
//                       })
//       .set_default({{"BLOCK_X", 64}, {"BLOCK_Y", 4}, {"USE_LOCAL", 0}});
//   const enumerated_space valid = s.enumerate(device.info());

#include <kbench/config.hpp>
#include <kbench/device.hpp>
#include <kbench/error.hpp>
#include <kbench/tune/enumerated_space.hpp>
#include <kbench/tune/parameter.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace kbench::tune {

/// A predicate every valid config satisfies. The name appears in messages and in the space hash: change the
/// name when the predicate changes, or cached results keyed by the old hash would be reused.
struct constraint {
  std::string name;  // e.g. "work-group size <= device maximum"
  std::function<bool(const config&, const device_info&)> holds;
};

/// No config satisfies every constraint on this device. A usage_error: the CLI prints it and exits with 2.
class empty_space_error : public usage_error {
 public:
  using usage_error::usage_error;
};

class space {
 public:
  /// Appends a parameter; names must be distinct.
  space& add(parameter p);
  space& add_constraint(std::string name, std::function<bool(const config&, const device_info&)> holds);
  /// The config used without tuning (`--effort none`) and as a search's starting point. It must name every
  /// parameter with one of its values. Without one, the default is every parameter's first value.
  space& set_default(config values);

  [[nodiscard]] const std::vector<parameter>& parameters() const { return m_parameters; }
  [[nodiscard]] const std::vector<constraint>& constraints() const { return m_constraints; }
  [[nodiscard]] config default_config() const;

  /// Number of configs before constraints: the product of the parameter sizes.
  [[nodiscard]] std::uint64_t cartesian_size() const;
  /// Names of the constraints `values` violates on `device` (empty: valid). Values outside a parameter's list
  /// or a missing/extra parameter are reported as violations too.
  [[nodiscard]] std::vector<std::string> violations(const config& values, const device_info& device) const;
  [[nodiscard]] bool is_valid(const config& values, const device_info& device) const {
    return violations(values, device).empty();
  }
  /// The valid configs on `device`, in lexicographic order of value indices (last parameter fastest).
  /// Throws empty_space_error naming the most violated constraints when none is valid.
  [[nodiscard]] enumerated_space enumerate(const device_info& device) const;

  /// Stable 64-bit FNV-1a hash of the definition: parameter names, kinds, values, labels, block-size marks,
  /// constraint names and the default. The same across runs and platforms (a cache-key field).
  [[nodiscard]] std::uint64_t definition_hash() const;
  /// definition_hash() as 16 lowercase hex digits.
  [[nodiscard]] std::string definition_hash_text() const;

 private:
  std::vector<parameter> m_parameters;
  std::vector<constraint> m_constraints;
  config m_default;
};

}  // namespace kbench::tune
