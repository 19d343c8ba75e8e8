// Fuzz target: Kernel Tuner cache files, as `kbench tune --simulate` replays them and as `--kt-cache`
// checks an existing one before it appends.

#include "fuzz/fuzz_input.hpp"

#include <kbench/tune/kernel_tuner_cache.hpp>
#include <kbench/tune/simulate.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text = kbench::fuzz::text_of(data, size);
  kbench::fuzz::expect_clean_refusal([&] { (void)kbench::tune::parse_recorded_space(text, "input"); });
  static const std::filesystem::path file =
      std::filesystem::temp_directory_path() / ("kbench-fuzz-kt-" + std::to_string(::getpid()) + ".json");
  std::ofstream(file, std::ios::binary | std::ios::trunc) << text;
  kbench::tune::kernel_tuner_header header;
  header.kernel_name = "exp";
  header.device_name = "fuzz";
  header.problem_size = {1024};
  header.parameters = {kbench::tune::parameter::integers("TASK", {1024, 4096})};
  kbench::fuzz::expect_clean_refusal([&] { kbench::tune::check_kernel_tuner_cache(file, header); });
  return 0;
}
