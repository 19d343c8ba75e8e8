#include <kbench/backends/registry.hpp>
#include <kbench/io/text_table.hpp>

#include "commands.hpp"
#include "subcommand.hpp"

#include <fmt/format.h>

namespace kbench::cli {

int list_devices() {
  io::text_table table({"Backend", "Status", "Device", "Platform", "Driver", "Units", "Memory (GiB)"});
  for (const auto& status : probe_backends()) {
    if (!status.available) {
      table.add_row({std::string(to_string(status.kind)), status.compiled ? "unavailable" : "not built",
                     status.reason});
      continue;
    }
    for (const auto& d : status.devices) {
      table.add_row(
          {std::string(to_string(status.kind)), "available", d.name, d.platform, d.driver_version,
           fmt::format("{}", d.compute_units),
           fmt::format("{:.1f}", static_cast<double>(d.global_memory_bytes) / (1024.0 * 1024.0 * 1024.0))});
    }
  }
  fmt::print("{}", table.render());
  fmt::print("auto picks: {}\n", to_string(pick_auto_backend()));
  return 0;
}

namespace {

const subcommand_registration devices_registration{"devices", "Backends and devices found on this machine",
                                                   [](CLI::App&) { return [] { return list_devices(); }; }};
}  // namespace

}  // namespace kbench::cli
