#pragma once
// A kernel described in a file (TOML): its sources per backend, problem shapes, arguments, launch sizes,
// tuning space and reference, so that a user's OpenCL or CUDA kernel is measured, checked and tuned without
// rebuilding kbench. docs/specs.md describes the format; examples/specs/ has complete files.

#include <kbench/config.hpp>
#include <kbench/host_tensor.hpp>
#include <kbench/spec/expression.hpp>
#include <kbench/suite/kernel.hpp>

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kbench::spec {

/// How an argument is passed: a device buffer the kernel reads (in) or writes (out), or a value (scalar).
enum class argument_role { in, out, scalar };

/// How an input buffer is filled, deterministically from the run's seed.
struct initializer {
  enum class kind { uniform, normal, zeros, constant, npy };
  kind how = kind::uniform;
  double first = -1.0;   // uniform: low; normal: mean; constant: the value
  double second = 1.0;   // uniform: high; normal: standard deviation
  std::string npy_file;  // npy: the file, {shape} replaced by the shape (e.g. 1024x256)
};

struct argument {
  std::string name;
  std::string dtype;  // buffers: float32; scalars: int32, int64 or float32
  argument_role role = argument_role::in;
  std::optional<expression> size;   // buffers: [elements], an expression of the shape's dimensions
  std::optional<expression> value;  // scalars: of the dimensions and the tuning parameters
  initializer init;                 // in buffers
};

/// One backend's source: the file, its text, and the kernel's name in it.
struct kernel_source {
  std::filesystem::path file;
  std::string text;
  std::string entry;
};

struct tuning_parameter {
  std::string name;
  std::vector<std::int64_t> values;
};

struct kernel_spec {
  std::filesystem::path file;  // absolute
  std::string name;
  std::string description;
  std::vector<std::string> dims;  // the names of the shape's dimensions, for the expressions
  std::vector<kbench::shape> shapes;
  std::optional<kernel_source> opencl;
  std::optional<kernel_source> cuda;
  std::vector<argument> arguments;
  /// Work-items per dimension (rounded up to a multiple of `local`, as Kernel Tuner's grid does) and the
  /// work-group (CUDA: block) size, expressions of the dimensions and the tuning parameters.
  std::vector<expression> global;
  std::vector<expression> local;
  std::vector<tuning_parameter> parameters;
  std::vector<expression> constraints;
  kbench::config default_config;
  /// The reference: another spec file whose outputs of the same names are the expected ones, or per
  /// output a .npy file of expected values ({shape} replaced as for initializer::npy_file), or a
  /// TorchScript function `reference` (the script's text; docs/specs.md gives its arguments).
  std::filesystem::path reference_spec;
  std::map<std::string, std::string> reference_npy;
  std::string reference_torch;
  int reference_torch_line = 0;  // the line of [reference] torch in the file, for messages
  kbench::suite::tolerance tolerance;
  /// SHA-256 of the spec file, its sources and its reference files: the tuning cache's source hash.
  std::string content_hash;
};

/// Reads and checks a spec file. Throws usage_error "FILE:LINE: ..." (the line where the parser gives one)
/// naming the valid choices, for a syntax error, an unknown key, a wrong type, a missing file, an
/// expression that does not parse or uses an unknown name.
/// What a spec file is read as: a kernel to time, which needs a [reference], or another spec's reference.
enum class spec_use { kernel, reference };

[[nodiscard]] kernel_spec read_spec(const std::filesystem::path& file, spec_use use = spec_use::kernel);

/// The value of `dims` for `s`: dimension name -> extent (throws usage_error when the ranks differ).
[[nodiscard]] bindings shape_bindings(const kernel_spec& spec, const kbench::shape& s);

/// "1024x256": how {shape} is replaced in a spec's file names.
[[nodiscard]] std::string shape_file_text(const kbench::shape& s);
/// `pattern` with every {shape} replaced by shape_file_text(s).
[[nodiscard]] std::string with_shape(std::string pattern, const kbench::shape& s);

}  // namespace kbench::spec
