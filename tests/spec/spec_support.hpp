#pragma once
// Spec files for the tests: the vector_add example copied into a scratch directory, with one part of its
// text replaced, so that each test breaks the spec in one place.

#include "support/scratch_dir.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace kbench::test {

inline const std::filesystem::path example_dir =
    std::filesystem::path(KBENCH_SOURCE_DIR) / "examples/specs/vector_add";

inline std::string read_file(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

inline void write_file(const std::filesystem::path& file, const std::string& text) {
  std::ofstream(file) << text;
}

/// `text` with its first `from` replaced by `to`; a test fails when `from` does not occur.
inline std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  if (at == std::string::npos)
    ADD_FAILURE() << "the example has no '" << from << "'";
  else
    text.replace(at, from.size(), to);
  return text;
}

/// A copy of the folder `example` of examples/specs in a fresh directory `name`, with `from` replaced by `to`
/// in its file `file` (when from is not empty); returns the copy's folder.
inline std::filesystem::path example_copy(const std::string& example, const std::string& name,
                                          const std::string& file = {}, const std::string& from = {},
                                          const std::string& to = {}) {
  const auto dir = scratch_dir(name);
  for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::path(KBENCH_SOURCE_DIR) /
                                                               "examples/specs" / example)) {
    std::filesystem::copy_file(entry.path(), dir / entry.path().filename());
  }
  if (!from.empty()) write_file(dir / file, replaced(read_file(dir / file), from, to));
  return dir;
}

/// A copy of the vector_add example in a fresh directory `name`, with `from` replaced by `to` in the spec
/// (from must occur); returns the spec's path.
inline std::filesystem::path vector_add_spec(const std::string& name, const std::string& from = {},
                                             const std::string& to = {}) {
  return example_copy("vector_add", name, "vector_add.toml", from, to) / "vector_add.toml";
}

/// A copy of the vector_add example in a fresh directory `name` whose OpenCL kernel has `from` replaced by
/// `to`; returns the spec's path.
inline std::filesystem::path vector_add_with_kernel(const std::string& name, const std::string& from,
                                                    const std::string& to) {
  return example_copy("vector_add", name, "vector_add.cl", from, to) / "vector_add.toml";
}

/// The environment that gives a kbench command its own cache directory under `dir`.
inline std::string cache_env(const std::filesystem::path& dir) {
  return "KBENCH_CACHE_DIR=" + (dir / "cache").string() + " ";
}

}  // namespace kbench::test
