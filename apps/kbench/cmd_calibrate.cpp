#include <kbench/backends/registry.hpp>
#include <kbench/error.hpp>
#include <kbench/io/directories.hpp>
#include <kbench/io/text_table.hpp>
#include <kbench/suite/calibrate.hpp>

#include "commands.hpp"
#include "numeric_option.hpp"
#include "subcommand.hpp"

#include <fmt/format.h>

#include <memory>

namespace kbench::cli {
using namespace kbench::suite;  // the suite's kernel API, unqualified

int calibrate(const calibrate_command& command) {
  std::vector<backend_kind> kinds;
  if (command.backend == "all") {
    for (const auto& status : probe_backends()) {
      if (status.available && status.kind != backend_kind::torch) kinds.push_back(status.kind);
    }
  } else if (command.backend == "auto") {
    kinds.push_back(pick_auto_backend());
  } else if (command.backend == "cpu" || command.backend == "opencl" || command.backend == "cuda") {
    kinds.push_back(parse_backend_kind(command.backend));
  } else {
    constexpr const char* valid = "valid: auto, all, cpu, opencl, cuda";
    if (command.backend == "torch") {
      throw usage_error(fmt::format("kbench calibrate measures a device backend ({})", valid));
    }
    throw usage_error(fmt::format("unknown backend '{}' ({})", command.backend, valid));
  }
  io::text_table table({"Backend", "Device", "Array (MiB)", "Copy (GB/s)", "Triad (GB/s)",
                        "Worst round: copy, triad (GB/s)", "Stores of the peaks: copy, triad"});
  int rounds = 0;
  for (backend_kind kind : kinds) {
    fmt::print(stderr, "[kbench] calibrating {} ...\n", to_string(kind));
    const calibration c = calibrate_device(open_device(kind), command.elements);
    store_calibration(c);
    rounds = c.rounds;
    table.add_row({c.backend, c.device,
                   fmt::format("{:.0f}", static_cast<double>(c.elements) * 4 / (1 << 20)),
                   fmt::format("{:.2f}", c.copy_gbps), fmt::format("{:.2f}", c.triad_gbps),
                   fmt::format("{:.2f}, {:.2f}", c.copy_low_gbps, c.triad_low_gbps),
                   fmt::format("{}, {}", c.copy_stores, c.triad_stores)});
  }
  fmt::print("{}", table.render());
  fmt::print(
      "each the best of {} rounds (a round's bandwidth: from its median call); the worst round shows\n"
      "how much the bandwidth left to kbench varied meanwhile (neighbours on a shared host, clocks);\n"
      "on the cpu each round runs both kernels with normal and with non-temporal stores (no\n"
      "read-for-ownership of the written lines, as kernels with STREAM 1 write) and keeps the faster\n",
      rounds);
  fmt::print("cached in {}\n", (io::cache_directory() / "calibration.json").string());
  return 0;
}

namespace {

// `kbench calibrate`'s flags.
const subcommand_registration calibrate_registration{
    "calibrate", "Peak memory bandwidth of a device (STREAM copy and triad), cached", [](CLI::App& app) {
      auto options = std::make_shared<calibrate_command>();
      app.add_option("--backend", options->backend, "auto, all, cpu, opencl or cuda")->capture_default_str();
      app.add_option("--elements", options->elements, "Floats per array")
          ->capture_default_str()
          ->check(count_in(1024, 1e11));
      return [options] { return calibrate(*options); };
    }};
}  // namespace

}  // namespace kbench::cli
