#include <kbench/error.hpp>
#include <kbench/suite/shard.hpp>

#include <fmt/format.h>

#include <charconv>
#include <optional>

namespace kbench::suite {

namespace {

/// A positive decimal number made of digits only (from_chars alone would accept a leading '-').
std::optional<std::size_t> positive_number(std::string_view text) {
  if (text.empty() || text.front() < '0' || text.front() > '9') return std::nullopt;
  std::size_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value == 0) return std::nullopt;
  return value;
}

}  // namespace

shard_spec parse_shard(std::string_view text) {
  const auto slash = text.find('/');
  const auto index = slash == std::string_view::npos ? std::nullopt : positive_number(text.substr(0, slash));
  const auto count = slash == std::string_view::npos ? std::nullopt : positive_number(text.substr(slash + 1));
  if (!index || !count || *index > *count) {
    throw usage_error(fmt::format(
        "invalid --shard '{}' (valid: i/N with whole numbers 1 <= i <= N, e.g. 1/1 or 2/4)", text));
  }
  return {*index, *count};
}

std::vector<suite_item> select_shard(const std::vector<suite_item>& plan, const shard_spec& shard) {
  if (shard.index < 1 || shard.index > shard.count) {
    throw usage_error(fmt::format("invalid shard {}/{} (valid: 1 <= i <= N)", shard.index, shard.count));
  }
  std::vector<suite_item> selected;
  // k % count rather than k += count: no overflow for any count the parser accepts.
  for (std::size_t k = 0; k < plan.size(); ++k) {
    if (k % shard.count == shard.index - 1) selected.push_back(plan[k]);
  }
  return selected;
}

}  // namespace kbench::suite
