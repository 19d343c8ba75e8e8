#include "save_records.hpp"

#include <kbench/io/json_v3.hpp>

#include <fmt/core.h>

namespace kbench::cli {

bool save_records(const std::string& path, const nlohmann::json& records) {
  std::string failure;
  const auto saved = io::append_records_or_rescue(path, records, failure);
  if (failure.empty()) {
    fmt::print("wrote {} records to {}\n", records.size(), path);
    return true;
  }
  if (path.empty()) {  // no --output, and the history database failed: the cache directory is their only
                       // place
    fmt::print(stderr, "kbench: the {} records of this run are saved in {}\n", records.size(),
               saved.string());
  } else {
    fmt::print(stderr, "kbench: could not write {} ({}); the {} records of this run are saved in {}\n", path,
               failure, records.size(), saved.string());
  }
  return false;
}

}  // namespace kbench::cli
