#include <kbench/io/text_table.hpp>
#include <kbench/suite/tuning_summary.hpp>

#include <fmt/format.h>

namespace kbench::suite {

tuning_summary::row& tuning_summary::row::operator+=(const row& other) {
  shapes += other.shapes;
  configs += other.configs;
  failed += other.failed;
  resumed += other.resumed;
  seconds += other.seconds;
  return *this;
}

void tuning_summary::add(const std::string& kernel, const tuning_outcome& outcome) {
  if (outcome.source != config_source::tuned && outcome.source != config_source::no_valid_config) {
    return;
  }
  m_rows[kernel] += row{1, outcome.evaluations, outcome.failed, outcome.resumed, outcome.tuning_s};
}

std::string tuning_summary::render() const {
  if (m_rows.empty()) return {};
  io::text_table table({"Kernel", "Shapes tuned", "Configs evaluated", "Failed", "Resumed", "Tuning (s)"});
  row total;
  const auto cells = [](const std::string& name, const row& r) {
    return std::vector<std::string>{name,
                                    std::to_string(r.shapes),
                                    std::to_string(r.configs),
                                    std::to_string(r.failed),
                                    std::to_string(r.resumed),
                                    fmt::format("{:.1f}", r.seconds)};
  };
  for (const auto& [kernel, r] : m_rows) {
    table.add_row(cells(kernel, r));
    total += r;
  }
  if (m_rows.size() > 1) table.add_row(cells("total", total));
  return table.render();
}

}  // namespace kbench::suite
