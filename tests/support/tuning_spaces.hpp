#pragma once
// Where the brute-forced tuning spaces are: $KBENCH_TUNING_SPACES, or tests/data/tuning-spaces in the
// repository (two Kernel Tuner cache files, MIT licence; their README says where they come from).

#include <cstdlib>
#include <filesystem>

namespace kbench::test {

inline std::filesystem::path tuning_spaces_dir() {
  if (const char* env = std::getenv("KBENCH_TUNING_SPACES")) return env;
  return std::filesystem::path(__FILE__).parent_path().parent_path() / "data" / "tuning-spaces";
}

}  // namespace kbench::test
