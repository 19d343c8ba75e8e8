#pragma once
// Where the shared brute-forced tuning spaces are: $KBENCH_TUNING_SPACES, or ../shared/data/tuning-spaces
// next to the repository root.

#include <cstdlib>
#include <filesystem>

namespace kbench::test {

inline std::filesystem::path tuning_spaces_dir() {
  if (const char* env = std::getenv("KBENCH_TUNING_SPACES")) return env;
  return std::filesystem::path(__FILE__).parent_path().parent_path().parent_path().parent_path() / "shared" /
         "data" / "tuning-spaces";
}

}  // namespace kbench::test
