#include <kbench/error.hpp>
#include <kbench/spec/expression.hpp>

#include <fmt/format.h>
#include <muParser.h>

#include <cmath>
#include <limits>
#include <mutex>

namespace kbench::spec {

namespace {

double floor_divide(double a, double b) {
  return std::floor(a / b);
}
double remainder_of(double a, double b) {
  return a - b * std::floor(a / b);  // Python's %: the sign of the divisor
}
double ceil_divide(double a, double b) {
  return std::ceil(a / b);
}
double ceil_of(double a) {
  return std::ceil(a);
}
double floor_of(double a) {
  return std::floor(a);
}

}  // namespace

/// The parser and the storage its variables point to (muparser binds a name to an address). Evaluation
/// writes that storage, so it is serialized.
struct expression::impl {
  mu::Parser parser;
  std::map<std::string, double> storage;  // node-based: the addresses stay put
  std::vector<std::string> used;          // the names the expression uses
  std::mutex evaluating;
};

expression::expression(std::string text, const std::vector<std::string>& names, std::string where)
    : m_text(std::move(text)), m_where(std::move(where)), m_impl(std::make_shared<impl>()) {
  mu::Parser& parser = m_impl->parser;
  parser.DefineOprt("//", &floor_divide, mu::prMUL_DIV);
  parser.DefineOprt("%", &remainder_of, mu::prMUL_DIV);
  parser.DefineFun("ceil_div", &ceil_divide);
  parser.DefineFun("ceil", &ceil_of);
  parser.DefineFun("floor", &floor_of);
  for (const auto& name : names) parser.DefineVar(name, &m_impl->storage[name]);
  try {
    parser.SetExpr(m_text);
    (void)parser.Eval();  // muparser parses on the first evaluation
    for (const auto& [name, address] : parser.GetUsedVar()) m_impl->used.push_back(name);
  } catch (const mu::Parser::exception_type& e) {
    if (e.GetCode() == mu::ecUNASSIGNABLE_TOKEN) {
      throw usage_error(fmt::format("{}: expression '{}': unknown name '{}' (valid: {})", m_where, m_text,
                                    e.GetToken(),
                                    names.empty() ? "none" : fmt::format("{}", fmt::join(names, ", "))));
    }
    throw usage_error(fmt::format("{}: expression '{}': {}", m_where, m_text, e.GetMsg()));
  }
}

double expression::evaluate(const bindings& values) const {
  const std::lock_guard lock(m_impl->evaluating);
  for (const auto& name : m_impl->used) {
    const auto value = values.find(name);
    if (value == values.end())
      KBENCH_THROW("{}: expression '{}' needs a value of '{}'", m_where, m_text, name);
    m_impl->storage[name] = static_cast<double>(value->second);
  }
  try {
    return m_impl->parser.Eval();
  } catch (const mu::Parser::exception_type& e) {
    KBENCH_THROW("{}: expression '{}': {}", m_where, m_text, e.GetMsg());
  }
}

std::int64_t expression::evaluate_integer(const bindings& values) const {
  const double value = evaluate(values);
  if (!std::isfinite(value) || value != std::floor(value) || std::fabs(value) > 9.0e15) {
    throw usage_error(fmt::format("{}: expression '{}' is {}, not an integer", m_where, m_text, value));
  }
  return static_cast<std::int64_t>(value);
}

}  // namespace kbench::spec
