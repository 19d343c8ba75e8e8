#include <kbench/build_config.hpp>
#include <kbench/error.hpp>

#include "spec_files.hpp"

#if KBENCH_HAS_SPECS
#include <kbench/spec/spec_kernel.hpp>
#endif

#include <fmt/format.h>

namespace kbench::cli {

std::vector<std::string> load_spec_files(const std::vector<std::string>& files) {
  std::vector<std::string> names;
#if KBENCH_HAS_SPECS
  for (const auto& file : files) names.push_back(spec::load_spec_kernel(file));
#else
  if (!files.empty()) {
    throw usage_error(
        "this kbench was built without spec files (KBENCH_WITH_SPECS: needs toml++ and muparser)");
  }
#endif
  return names;
}

std::string chosen_kernel(const std::string& kernel, const std::vector<std::string>& spec_kernels) {
  if (!kernel.empty()) return kernel;
  if (spec_kernels.size() == 1) return spec_kernels.front();
  if (spec_kernels.empty())
    throw usage_error("name a kernel: --kernel NAME (see `kbench list`) or --spec FILE");
  throw usage_error(fmt::format("--spec gave several kernels ({}): choose one with --kernel",
                                fmt::join(spec_kernels, ", ")));
}

void load_spec_file_for_worker(const std::string& file) {
  (void)load_spec_files({file});
}

}  // namespace kbench::cli
