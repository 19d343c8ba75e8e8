// The torch baseline's device: host memory and libtorch's CPU thread pool. It registers itself with the
// backend registry, so that only the programs linked with libtorch have it.

#include <kbench/backends/cpu.hpp>
#include <kbench/backends/registry.hpp>
#include <kbench/error.hpp>

#include <ATen/Parallel.h>
#include <torch/version.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <thread>

namespace kbench {

namespace {

/// Debian's libtorch starts with one OpenMP thread (omp_get_max_threads() = 1 here on 2 cores); the baseline
/// gets every core, as the cpu backend does, so that a speedup compares kernels and not thread counts.
void use_every_core() {
  static const bool done = [] {
    const auto cores = static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));
    if (at::get_num_threads() < cores) at::set_num_threads(cores);
    return true;
  }();
  (void)done;
}

class torch_device final : public device {
 public:
  torch_device() {
    use_every_core();
    m_info = cpu::open_device()->info();
    m_info.backend = backend_kind::torch;
    // The spin count of torch's OpenMP threads, when set, changes the timings of torch and of whatever runs
    // after a torch call (suite/baseline_tuning.hpp), so the record names it. The thread count is the most a
    // binding uses; each binding's config may ask for fewer.
    const char* spin_count = std::getenv("GOMP_SPINCOUNT");
    m_info.platform =
        fmt::format("libtorch {} (ATen CPU, up to {} threads{})", TORCH_VERSION, at::get_num_threads(),
                    spin_count == nullptr ? "" : fmt::format(", GOMP_SPINCOUNT={}", spin_count));
    m_info.driver_version = TORCH_VERSION;
    m_info.compute_units = static_cast<unsigned>(at::get_num_threads());
  }
  [[nodiscard]] const device_info& info() const override { return m_info; }
  [[nodiscard]] buffer_ptr allocate(std::size_t bytes) override {
    return std::make_shared<cpu::host_buffer>(bytes);
  }
  void barrier() override {}  // every baseline call is synchronous: nothing is ever pending

 private:
  device_info m_info;
};

[[maybe_unused]] const bool registered = register_backend_provider(
    backend_kind::torch, {.list = [] { return std::vector<device_info>{torch_device().info()}; },
                          .open = [](std::size_t index) -> device_ptr {
                            if (index != 0)
                              KBENCH_THROW("the torch baseline has one device (index 0), not {}", index);
                            return std::make_shared<torch_device>();
                          }});

}  // namespace

}  // namespace kbench
