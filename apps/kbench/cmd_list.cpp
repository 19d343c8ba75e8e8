#include <kbench/io/text_table.hpp>
#include <kbench/suite/registry.hpp>

#include "commands.hpp"
#include "subcommand.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace kbench::cli {
using namespace kbench::suite;  // the suite's kernel API, unqualified

int list_kernels() {
  io::text_table table({"Kernel", "Backends", "Shapes", "Description"});
  for (const auto& kernel : all_kernels()) {
    std::vector<std::string> backends, shapes;
    for (const auto& impl : kernel.implementations) backends.emplace_back(to_string(impl.backend));
    for (const auto& s : kernel.shapes) shapes.push_back(to_string(s));
    table.add_row({kernel.name, fmt::format("{}", fmt::join(backends, ",")),
                   fmt::format("{}", fmt::join(shapes, " ")), kernel.description});
  }
  fmt::print("{}", table.render());
  fmt::print("{} kernels\n", all_kernels().size());
  return 0;
}

namespace {

const subcommand_registration list_registration{"list", "Kernels, their shapes and backends",
                                                [](CLI::App&) { return [] { return list_kernels(); }; }};
}  // namespace

}  // namespace kbench::cli
