#pragma once
// An arithmetic expression of a kernel spec (an argument's size, a launch size, a tuning constraint) over
// named integers: the shape's dimensions and the tuning parameters. Parsed once by muparser, with the
// operators Kernel Tuner's specs use besides C's: `//` (floor division), `%`, `&&`, `||`, `?:`, and the
// functions ceil_div(a, b), ceil, floor, min, max.

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace kbench::spec {

/// Values of the names an expression may use.
using bindings = std::map<std::string, std::int64_t>;

class expression {
 public:
  /// Parses `text`, which may use `names` only. Throws usage_error "WHERE: expression 'TEXT': ..." naming the
  /// unknown name and the valid ones, or the parser's complaint and its position.
  expression(std::string text, const std::vector<std::string>& names, std::string where);

  /// The value with `values` (every name the expression uses must be there); throws kbench::error otherwise.
  [[nodiscard]] double evaluate(const bindings& values) const;
  /// The value as an integer: throws usage_error when it is not one (2.5) or is out of int64's range.
  [[nodiscard]] std::int64_t evaluate_integer(const bindings& values) const;

  [[nodiscard]] const std::string& text() const { return m_text; }

 private:
  struct impl;
  std::string m_text;
  std::string m_where;
  std::shared_ptr<impl> m_impl;
};

}  // namespace kbench::spec
