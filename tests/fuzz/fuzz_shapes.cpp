// Fuzz target: shapes given on the command line (--shape) and in spec files.

#include "fuzz/fuzz_input.hpp"

#include <kbench/host_tensor.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  kbench::fuzz::expect_clean_refusal([&] { (void)kbench::parse_shape(kbench::fuzz::text_of(data, size)); });
  return 0;
}
