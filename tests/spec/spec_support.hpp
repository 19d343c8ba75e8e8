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

/// A copy of the vector_add example in a fresh directory `name`, with `from` replaced by `to` in the spec
/// (from must occur); returns the spec's path.
inline std::filesystem::path vector_add_spec(const std::string& name, const std::string& from = {},
                                             const std::string& to = {}) {
  const auto dir = scratch_dir(name);
  for (const auto& entry : std::filesystem::directory_iterator(example_dir)) {
    std::filesystem::copy_file(entry.path(), dir / entry.path().filename());
  }
  std::string text = read_file(dir / "vector_add.toml");
  if (!from.empty()) {
    const auto at = text.find(from);
    if (at == std::string::npos)
      ADD_FAILURE() << "the example has no '" << from << "'";
    else
      text.replace(at, from.size(), to);
  }
  write_file(dir / "vector_add.toml", text);
  return dir / "vector_add.toml";
}

}  // namespace kbench::test
