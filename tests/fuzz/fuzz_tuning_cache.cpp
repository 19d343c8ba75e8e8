// Fuzz target: entries of kbench's tuning cache (a corrupt one is reported and moved aside, never trusted).

#include "fuzz/fuzz_input.hpp"

#include <kbench/tune/cache.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("kbench-fuzz-cache-" + std::to_string(::getpid()));
  const kbench::tune::tuning_cache cache(dir);
  kbench::tune::cache_key key;
  key.kernel = "exp";
  key.shape = "[1024]";
  key.dtype = "float32";
  key.backend = "cpu";
  key.device = "fuzz";
  const auto path = cache.path_of(key);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << kbench::fuzz::text_of(data, size);
  kbench::fuzz::expect_clean_refusal([&] {
    (void)cache.read(key);
    (void)cache.entries();
  });
  return 0;
}
