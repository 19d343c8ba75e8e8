#include <kbench/io/text_table.hpp>

#include <fmt/format.h>

#include <algorithm>

namespace kbench::io {

namespace {
/// Display width in terminal columns: counts UTF-8 code points (every character used here is one column).
std::size_t display_width(const std::string& s) {
  return static_cast<std::size_t>(
      std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}
}  // namespace

std::string text_table::render() const {
  std::vector<std::size_t> widths(m_header.size(), 0);
  auto widen = [&](const std::vector<std::string>& row) {
    for (std::size_t i = 0; i < row.size() && i < widths.size(); ++i)
      widths[i] = std::max(widths[i], display_width(row[i]));
  };
  widen(m_header);
  for (const auto& row : m_rows) widen(row);

  auto line = [&](const std::vector<std::string>& row) {
    std::string out;
    for (std::size_t i = 0; i < widths.size(); ++i) {
      const std::string cell = i < row.size() ? row[i] : "";
      if (i > 0) out += " | ";
      out += cell;
      if (i + 1 < widths.size()) out.append(widths[i] - display_width(cell), ' ');
    }
    return out + "\n";
  };
  std::string out = line(m_header);
  std::string rule;
  for (std::size_t i = 0; i < widths.size(); ++i) {
    if (i > 0) rule += "-|-";
    rule.append(widths[i], '-');
  }
  out += rule + "\n";
  for (const auto& row : m_rows) out += line(row);
  return out;
}

}  // namespace kbench::io
