#pragma once
// A plain text table: columns sized to their widest cell, separated by " | ".

#include <string>
#include <vector>

namespace kbench::io {

class text_table {
 public:
  explicit text_table(std::vector<std::string> header) : m_header(std::move(header)) {}
  void add_row(std::vector<std::string> cells) { m_rows.push_back(std::move(cells)); }
  [[nodiscard]] std::string render() const;

 private:
  std::vector<std::string> m_header;
  std::vector<std::vector<std::string>> m_rows;
};

}  // namespace kbench::io
