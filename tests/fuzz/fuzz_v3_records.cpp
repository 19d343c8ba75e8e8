// Fuzz target: v3 result files, as `kbench history add`, `report` and `compare` read them.

#include "fuzz/fuzz_input.hpp"

#include <kbench/history/records.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  kbench::fuzz::expect_clean_refusal([&] {
    const auto records = kbench::history::parse_results(kbench::fuzz::text_of(data, size), "input");
    (void)kbench::history::runs_from_records(records, "fuzz");
  });
  return 0;
}
