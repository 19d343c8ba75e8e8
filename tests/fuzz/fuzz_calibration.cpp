// Fuzz target: the calibration cache (calibration.json in the cache directory), read by every `kbench run`.

#include "fuzz/fuzz_input.hpp"

#include <kbench/io/directories.hpp>
#include <kbench/suite/calibrate.hpp>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("kbench-fuzz-calibration-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  ::setenv("KBENCH_CACHE_DIR", dir.c_str(), 1);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::ofstream(kbench::io::cache_directory() / "calibration.json", std::ios::binary | std::ios::trunc)
      << kbench::fuzz::text_of(data, size);
  kbench::device_info device;
  device.backend = kbench::backend_kind::cpu;
  device.name = "AMD EPYC";
  kbench::fuzz::expect_clean_refusal([&] { (void)kbench::suite::cached_calibration(device); });
  return 0;
}
