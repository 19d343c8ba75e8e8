#include <kbench/error.hpp>
#include <kbench/io/read_file.hpp>
#include <kbench/spec/kernel_spec.hpp>

#include "spec/detail/content_hash.hpp"

#include <fmt/format.h>
#include <fmt/std.h>
#include <toml++/toml.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <set>

namespace kbench::spec {

namespace {

constexpr int max_reference_depth = 4;  // spec -> reference spec -> ...: deeper is a loop

/// The file's text; throws usage_error naming `what` and the file when it is missing or too large.
std::string read_text(const std::filesystem::path& file, std::string_view what) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) {
    throw usage_error(fmt::format("{}: {} not found (or not a regular file)", file.string(), what));
  }
  return io::read_file(file, io::max_small_file_bytes, what);
}

/// Reads one spec file: the parsed TOML and what each error message needs to name its place.
class spec_reader {
 public:
  spec_reader(std::filesystem::path file, int depth) : m_file(std::move(file)), m_depth(depth) {}

  kernel_spec read() {
    const std::string text = read_text(m_file, "spec file");
    toml::table root;
    try {
      root = toml::parse(text, m_file.string());
    } catch (const toml::parse_error& e) {
      throw usage_error(fmt::format("{}:{}: {}", m_file.string(), e.source().begin.line, e.description()));
    }
    m_root = &root;
    kernel_spec spec;
    spec.file = m_file;
    check_keys(root, "the spec",
               {"name", "description", "dims", "shapes", "opencl", "cuda", "args", "launch", "tune",
                "reference", "tolerance"});
    spec.name = required_string(root, "name", "the spec");
    check_kernel_name(root, spec.name);
    spec.description = optional_string(root, "description").value_or("");
    spec.dims = string_list(required(root, "dims", "the spec"), "dims");
    if (spec.dims.empty()) fail(*root.get("dims"), "dims is empty: name each dimension of the shapes");
    read_shapes(root, spec);
    for (const char* backend : {"opencl", "cuda"}) {
      if (const toml::node* node = root.get(backend)) {
        (backend == std::string_view("opencl") ? spec.opencl : spec.cuda) = read_source(*node, backend);
      }
    }
    if (!spec.opencl && !spec.cuda)
      fail_at_top("the spec names no source: give [opencl] or [cuda] (or both)");
    read_tuning(root, spec);
    std::vector<std::string> names = spec.dims;
    for (const auto& p : spec.parameters) names.push_back(p.name);
    read_arguments(root, spec, names);
    read_launch(root, spec, names);
    read_reference(root, spec);
    read_tolerance(root, spec);
    spec.content_hash = hash_contents(text, spec);
    return spec;
  }

 private:
  [[noreturn]] void fail(const toml::node& node, std::string_view message) const {
    throw usage_error(fmt::format("{}:{}: {}", m_file.string(), node.source().begin.line, message));
  }
  [[noreturn]] void fail_at_top(std::string_view message) const {
    throw usage_error(fmt::format("{}: {}", m_file.string(), message));
  }
  std::string place(const toml::node& node) const {
    return fmt::format("{}:{}", m_file.string(), node.source().begin.line);
  }

  void check_keys(const toml::table& table, std::string_view context, std::vector<std::string> valid) const {
    for (auto&& [key, value] : table) {
      if (std::find(valid.begin(), valid.end(), key.str()) == valid.end()) {
        std::sort(valid.begin(), valid.end());
        throw usage_error(fmt::format("{}:{}: unknown key '{}' in {} (valid: {})", m_file.string(),
                                      key.source().begin.line, key.str(), context, fmt::join(valid, ", ")));
      }
    }
  }

  const toml::node& required(const toml::table& table, std::string_view key, std::string_view context) const {
    const toml::node* node = table.get(key);
    if (node == nullptr) {
      if (&table == m_root) fail_at_top(fmt::format("{} has no '{}'", context, key));
      fail(table, fmt::format("{} has no '{}'", context, key));
    }
    return *node;
  }

  std::string required_string(const toml::table& table, std::string_view key,
                              std::string_view context) const {
    const toml::node& node = required(table, key, context);
    if (!node.is_string()) fail(node, fmt::format("'{}' must be a string, not {}", key, type_name(node)));
    return std::string(*node.value<std::string>());
  }

  std::optional<std::string> optional_string(const toml::table& table, std::string_view key) const {
    const toml::node* node = table.get(key);
    if (node == nullptr) return std::nullopt;
    if (!node->is_string()) fail(*node, fmt::format("'{}' must be a string, not {}", key, type_name(*node)));
    return std::string(*node->value<std::string>());
  }

  std::optional<double> optional_number(const toml::table& table, std::string_view key) const {
    const toml::node* node = table.get(key);
    if (node == nullptr) return std::nullopt;
    if (!node->is_number()) fail(*node, fmt::format("'{}' must be a number, not {}", key, type_name(*node)));
    return *node->value<double>();
  }

  const toml::table& as_table(const toml::node& node, std::string_view key) const {
    if (!node.is_table()) fail(node, fmt::format("'{}' must be a table, not {}", key, type_name(node)));
    return *node.as_table();
  }

  const toml::array& as_array(const toml::node& node, std::string_view key) const {
    if (!node.is_array()) fail(node, fmt::format("'{}' must be an array, not {}", key, type_name(node)));
    return *node.as_array();
  }

  std::vector<std::string> string_list(const toml::node& node, std::string_view key) const {
    std::vector<std::string> list;
    for (const toml::node& item : as_array(node, key)) {
      if (!item.is_string()) fail(item, fmt::format("'{}' holds strings, not {}", key, type_name(item)));
      list.emplace_back(*item.value<std::string>());
    }
    return list;
  }

  std::int64_t integer(const toml::node& node, std::string_view key) const {
    if (!node.is_integer()) fail(node, fmt::format("'{}' holds integers, not {}", key, type_name(node)));
    return *node.value<std::int64_t>();
  }

  static std::string type_name(const toml::node& node) {
    switch (node.type()) {
      case toml::node_type::string:
        return "a string";
      case toml::node_type::integer:
        return "an integer";
      case toml::node_type::floating_point:
        return "a float";
      case toml::node_type::boolean:
        return "a boolean";
      case toml::node_type::array:
        return "an array";
      case toml::node_type::table:
        return "a table";
      default:
        return "a date or time";
    }
  }

  void check_kernel_name(const toml::table& root, const std::string& name) const {
    const bool valid = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-';
    });
    if (!valid) fail(*root.get("name"), fmt::format("name '{}': use letters, digits, '_' and '-'", name));
  }

  void read_shapes(const toml::table& root, kernel_spec& spec) const {
    const toml::node& node = required(root, "shapes", "the spec");
    for (const toml::node& item : as_array(node, "shapes")) {
      kbench::shape s;
      for (const toml::node& extent : as_array(item, "shapes")) {
        const std::int64_t e = integer(extent, "a shape");
        if (e < 1) fail(extent, fmt::format("a shape's extent must be at least 1, not {}", e));
        s.push_back(e);
      }
      if (s.size() != spec.dims.size()) {
        fail(item, fmt::format("shape {} has {} dimensions, dims names {} ({})", to_string(s), s.size(),
                               spec.dims.size(), fmt::join(spec.dims, ", ")));
      }
      spec.shapes.push_back(std::move(s));
    }
    if (spec.shapes.empty()) fail(node, "shapes is empty: give at least one, e.g. [[1048576]]");
  }

  kernel_source read_source(const toml::node& node, std::string_view backend) const {
    const toml::table& table = as_table(node, backend);
    check_keys(table, fmt::format("[{}]", backend), {"source", "entry"});
    kernel_source source;
    const std::string file = required_string(table, "source", fmt::format("[{}]", backend));
    source.file = resolve(file);
    source.entry = required_string(table, "entry", fmt::format("[{}]", backend));
    try {
      source.text = read_text(source.file, fmt::format("the {} source", backend));
    } catch (const usage_error& e) {
      fail(*table.get("source"), e.what());
    }
    return source;
  }

  std::filesystem::path resolve(const std::string& relative) const {
    return std::filesystem::absolute(m_file.parent_path() / relative).lexically_normal();
  }

  void read_tuning(const toml::table& root, kernel_spec& spec) const {
    const toml::node* node = root.get("tune");
    if (node == nullptr) return;
    const toml::table& tune = as_table(*node, "tune");
    check_keys(tune, "[tune]", {"parameters", "constraints", "default"});
    if (const toml::node* parameters = tune.get("parameters")) {
      for (auto&& [key, values] : as_table(*parameters, "parameters")) {
        tuning_parameter p{std::string(key.str()), {}};
        for (const toml::node& v : as_array(values, p.name)) p.values.push_back(integer(v, p.name));
        if (p.values.empty()) fail(values, fmt::format("tuning parameter '{}' has no values", p.name));
        if (std::find(spec.dims.begin(), spec.dims.end(), p.name) != spec.dims.end()) {
          fail(values, fmt::format("tuning parameter '{}' has the name of a dimension", p.name));
        }
        spec.parameters.push_back(std::move(p));
      }
    }
    std::vector<std::string> names = spec.dims;
    for (const auto& p : spec.parameters) names.push_back(p.name);
    if (const toml::node* constraints = tune.get("constraints")) {
      for (const toml::node& c : as_array(*constraints, "constraints")) {
        if (!c.is_string()) fail(c, fmt::format("'constraints' holds strings, not {}", type_name(c)));
        spec.constraints.emplace_back(std::string(*c.value<std::string>()), names, place(c));
      }
    }
    if (const toml::node* defaults = tune.get("default")) {
      for (auto&& [key, value] : as_table(*defaults, "default")) {
        const auto p = std::find_if(spec.parameters.begin(), spec.parameters.end(),
                                    [&](const auto& q) { return q.name == key.str(); });
        if (p == spec.parameters.end()) {
          std::vector<std::string> valid;
          for (const auto& q : spec.parameters) valid.push_back(q.name);
          fail(value, fmt::format("default names '{}', which is not a tuning parameter (valid: {})",
                                  key.str(), fmt::join(valid, ", ")));
        }
        const std::int64_t v = integer(value, key.str());
        if (std::find(p->values.begin(), p->values.end(), v) == p->values.end()) {
          fail(value, fmt::format("default {} = {} is not among its values ({})", key.str(), v,
                                  fmt::join(p->values, ", ")));
        }
        spec.default_config[std::string(key.str())] = v;
      }
    }
    for (const auto& p : spec.parameters) {  // a parameter without a default starts at its first value
      spec.default_config.emplace(p.name, p.values.front());
    }
  }

  void read_arguments(const toml::table& root, kernel_spec& spec,
                      const std::vector<std::string>& names) const {
    const toml::node& node = required(root, "args", "the spec");
    std::set<std::string> seen;
    for (const toml::node& item : as_array(node, "args")) {
      const toml::table& table = as_table(item, "args");
      check_keys(table, "[[args]]",
                 {"name", "dtype", "role", "size", "value", "init", "low", "high", "mean", "std", "file"});
      argument a;
      a.name = required_string(table, "name", "an [[args]] entry");
      if (!seen.insert(a.name).second) fail(item, fmt::format("argument '{}' is named twice", a.name));
      const std::string role = required_string(table, "role", fmt::format("argument '{}'", a.name));
      if (role == "in") {
        a.role = argument_role::in;
      } else if (role == "out") {
        a.role = argument_role::out;
      } else if (role == "scalar") {
        a.role = argument_role::scalar;
      } else {
        fail(*table.get("role"), fmt::format("role '{}' (valid: in, out, scalar)", role));
      }
      a.dtype = required_string(table, "dtype", fmt::format("argument '{}'", a.name));
      const std::string where = place(item) + fmt::format(": argument '{}'", a.name);
      if (a.role == argument_role::scalar) {
        if (a.dtype != "int32" && a.dtype != "int64" && a.dtype != "float32") {
          fail(*table.get("dtype"),
               fmt::format("dtype '{}' of scalar '{}' (valid: float32, int32, int64)", a.dtype, a.name));
        }
        a.value.emplace(required_string(table, "value", fmt::format("scalar '{}'", a.name)), names, where);
      } else {
        if (a.dtype != "float32") {
          fail(*table.get("dtype"),
               fmt::format("dtype '{}' of buffer '{}' (valid: float32)", a.dtype, a.name));
        }
        // Sizes depend on the shape only: the inputs and the expected outputs exist before any config.
        a.size.emplace(required_string(table, "size", fmt::format("buffer '{}'", a.name)), spec.dims, where);
        if (a.role == argument_role::in) a.init = read_initializer(table, a.name);
      }
      spec.arguments.push_back(std::move(a));
    }
    const bool has_output = std::any_of(spec.arguments.begin(), spec.arguments.end(),
                                        [](const auto& a) { return a.role == argument_role::out; });
    if (!has_output) fail(node, "no argument has role 'out': the kernel's results could not be checked");
  }

  initializer read_initializer(const toml::table& table, const std::string& name) const {
    initializer init;
    const std::string how = optional_string(table, "init").value_or("uniform");
    if (how == "uniform") {
      init.how = initializer::kind::uniform;
      init.first = optional_number(table, "low").value_or(-1.0);
      init.second = optional_number(table, "high").value_or(1.0);
    } else if (how == "normal") {
      init.how = initializer::kind::normal;
      init.first = optional_number(table, "mean").value_or(0.0);
      init.second = optional_number(table, "std").value_or(1.0);
    } else if (how == "zeros") {
      init.how = initializer::kind::zeros;
    } else if (how == "constant") {
      init.how = initializer::kind::constant;
      const auto value = optional_number(table, "value");
      if (!value)
        fail(*table.get("init"), fmt::format("input '{}': init 'constant' needs a number 'value'", name));
      init.first = *value;
    } else if (how == "npy") {
      init.how = initializer::kind::npy;
      init.npy_file =
          resolve(required_string(table, "file", fmt::format("input '{}' (init 'npy')", name))).string();
    } else {
      fail(*table.get("init"),
           fmt::format("init '{}' of input '{}' (valid: uniform, normal, zeros, constant, npy)", how, name));
    }
    return init;
  }

  void read_launch(const toml::table& root, kernel_spec& spec, const std::vector<std::string>& names) const {
    const toml::table& launch = as_table(required(root, "launch", "the spec"), "launch");
    check_keys(launch, "[launch]", {"global", "local"});
    for (const char* key : {"global", "local"}) {
      const toml::node& node = required(launch, key, "[launch]");
      auto& list = std::string_view(key) == "global" ? spec.global : spec.local;
      for (const toml::node& item : as_array(node, key)) {
        if (item.is_integer()) {
          list.emplace_back(std::to_string(*item.value<std::int64_t>()), names, place(item));
        } else if (item.is_string()) {
          list.emplace_back(std::string(*item.value<std::string>()), names, place(item));
        } else {
          fail(item,
               fmt::format("'{}' holds expressions (strings) or integers, not {}", key, type_name(item)));
        }
      }
      if (list.empty() || list.size() > 3) fail(node, fmt::format("'{}' needs 1 to 3 dimensions", key));
    }
    if (spec.global.size() != spec.local.size()) {
      fail(*launch.get("local"),
           fmt::format("global has {} dimensions and local {}", spec.global.size(), spec.local.size()));
    }
  }

  void read_reference(const toml::table& root, kernel_spec& spec) {
    if (m_depth > 0 && root.get("reference") == nullptr) return;  // a reference kernel needs none itself
    const toml::table& reference = as_table(required(root, "reference", "the spec"), "reference");
    check_keys(reference, "[reference]", {"spec", "npy", "torch"});
    if (const auto file = optional_string(reference, "spec")) {
      spec.reference_spec = resolve(*file);
      if (m_depth >= max_reference_depth)
        fail(*reference.get("spec"), "the chain of reference specs is a loop");
      try {
        m_reference_hash = spec_reader(spec.reference_spec, m_depth + 1).read().content_hash;
      } catch (const usage_error& e) {
        fail(*reference.get("spec"), fmt::format("the reference spec: {}", e.what()));
      }
    }
    if (const toml::node* npy = reference.get("npy")) {
      for (auto&& [key, value] : as_table(*npy, "npy")) {
        const auto out = std::find_if(spec.arguments.begin(), spec.arguments.end(), [&](const auto& a) {
          return a.name == key.str() && a.role == argument_role::out;
        });
        if (out == spec.arguments.end()) {
          fail(value, fmt::format("npy names '{}', which is not an output argument", key.str()));
        }
        if (!value.is_string()) fail(value, fmt::format("'{}' must be a file name (a string)", key.str()));
        spec.reference_npy[std::string(key.str())] = resolve(*value.value<std::string>()).string();
      }
      for (const auto& a : spec.arguments) {
        if (a.role == argument_role::out && !spec.reference_npy.count(a.name)) {
          fail(*npy, fmt::format("npy gives no file for output '{}'", a.name));
        }
      }
    }
    if (const auto script = optional_string(reference, "torch")) {
      spec.reference_torch = *script;
      spec.reference_torch_line = static_cast<int>(reference.get("torch")->source().begin.line);
    }
    const int given = static_cast<int>(!spec.reference_spec.empty()) +
                      static_cast<int>(!spec.reference_npy.empty()) +
                      static_cast<int>(!spec.reference_torch.empty());
    if (given != 1) {
      fail(*root.get("reference"),
           "[reference] needs exactly one of 'spec' (a reference kernel's spec file), 'npy' (a table: output "
           "name -> .npy file of expected values) and 'torch' (a TorchScript function 'reference')");
    }
  }

  void read_tolerance(const toml::table& root, kernel_spec& spec) const {
    const toml::node* node = root.get("tolerance");
    if (node == nullptr) return;
    const toml::table& table = as_table(*node, "tolerance");
    check_keys(table, "[tolerance]", {"atol", "rtol", "max_mismatch_fraction"});
    spec.tolerance.atol = optional_number(table, "atol").value_or(spec.tolerance.atol);
    spec.tolerance.rtol = optional_number(table, "rtol").value_or(spec.tolerance.rtol);
    spec.tolerance.max_mismatch_fraction =
        optional_number(table, "max_mismatch_fraction").value_or(spec.tolerance.max_mismatch_fraction);
    for (const auto& [key, value] :
         {std::pair{"atol", spec.tolerance.atol}, std::pair{"rtol", spec.tolerance.rtol}}) {
      if (!(value >= 0)) fail(*table.get(key), fmt::format("{} must be a number >= 0", key));
    }
    if (!(spec.tolerance.max_mismatch_fraction >= 0 && spec.tolerance.max_mismatch_fraction <= 1)) {
      fail(*table.get("max_mismatch_fraction"), "max_mismatch_fraction must be in [0, 1]");
    }
  }

  /// The spec's text, its sources, and the files it reads: a change to any of them is a new kernel.
  std::string hash_contents(const std::string& text, const kernel_spec& spec) const {
    detail::content_hasher hasher;
    hasher.add(text);
    for (const auto* source : {&spec.opencl, &spec.cuda}) {
      if (*source) hasher.add((*source)->text);
    }
    if (!spec.reference_spec.empty()) hasher.add(m_reference_hash);
    for (const auto& s : spec.shapes) {
      for (const auto& [name, pattern] : spec.reference_npy)
        hasher.add_file_if_present(with_shape(pattern, s));
      for (const auto& a : spec.arguments) {
        if (a.init.how == initializer::kind::npy) hasher.add_file_if_present(with_shape(a.init.npy_file, s));
      }
    }
    return hasher.hex_digest();
  }

  std::filesystem::path m_file;
  int m_depth;
  std::string m_reference_hash;         // the reference spec's content hash, read once by read_reference
  const toml::table* m_root = nullptr;  // for messages about a missing top-level key
};

}  // namespace

std::string shape_file_text(const kbench::shape& s) {
  return fmt::format("{}", fmt::join(s, "x"));
}

std::string with_shape(std::string pattern, const kbench::shape& s) {
  const std::string text = shape_file_text(s);
  for (auto at = pattern.find("{shape}"); at != std::string::npos;
       at = pattern.find("{shape}", at + text.size())) {
    pattern.replace(at, 7, text);
  }
  return pattern;
}

kernel_spec read_spec(const std::filesystem::path& file, spec_use use) {
  return spec_reader(std::filesystem::absolute(file).lexically_normal(), use == spec_use::reference ? 1 : 0)
      .read();
}

bindings shape_bindings(const kernel_spec& spec, const kbench::shape& s) {
  if (s.size() != spec.dims.size()) {
    throw usage_error(fmt::format("kernel '{}': shape {} has {} dimensions, the spec names {} ({})",
                                  spec.name, to_string(s), s.size(), spec.dims.size(),
                                  fmt::join(spec.dims, ", ")));
  }
  bindings values;
  for (std::size_t i = 0; i < s.size(); ++i) values[spec.dims[i]] = s[i];
  return values;
}

}  // namespace kbench::spec
