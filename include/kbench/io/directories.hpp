#pragma once
// Where kbench keeps what it learns about a machine between runs (tuning cache, calibration).

#include <filesystem>

namespace kbench::io {

/// $KBENCH_CACHE_DIR, else ~/.cache/kbench.
[[nodiscard]] std::filesystem::path cache_directory();

}  // namespace kbench::io
