#include <kbench/error.hpp>
#include <kbench/host_tensor.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cctype>
#include <charconv>

namespace kbench {

std::string to_string(const shape& s) {
  return fmt::format("[{}]", fmt::join(s, ","));
}

shape parse_shape(std::string_view text) {
  const std::string original(text);
  auto fail = [&]() -> usage_error {
    return usage_error(fmt::format(
        "invalid shape '{}' (expected positive integers such as 104857600, [1024,256], 1024,256 or 1024x256)",
        original));
  };
  // Blanks around the numbers are allowed, so that a shape copied from Python ([1024, 256], (1024, 256))
  // reads as it looks; a blank inside a number is not ("10 24").
  const auto skip_blanks = [&text] {
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())) != 0)
      text.remove_prefix(1);
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())) != 0) text.remove_suffix(1);
  };
  skip_blanks();
  if (!text.empty() && (text.front() == '[' || text.front() == '(')) {
    if (text.back() != (text.front() == '[' ? ']' : ')')) throw fail();
    text = text.substr(1, text.size() - 2);
    skip_blanks();
  }
  shape result;
  while (!text.empty()) {
    std::int64_t value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc{} || value <= 0) throw fail();
    result.push_back(value);
    text.remove_prefix(static_cast<std::size_t>(end - text.data()));
    skip_blanks();
    if (text.empty()) break;
    if (text.front() != ',' && text.front() != 'x' && text.front() != 'X') throw fail();
    text.remove_prefix(1);
    skip_blanks();
    if (text.empty()) throw fail();
  }
  if (result.empty()) throw fail();
  return result;
}

std::int64_t element_count(const shape& s) {
  std::int64_t count = 1;
  for (std::int64_t extent : s) count *= extent;
  return count;
}

namespace {
/// SplitMix64: a counter-based generator, so element i's value depends only on (seed, i).
std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}
}  // namespace

host_tensor uniform_tensor(const shape& s, std::uint64_t seed, float low, float high) {
  host_tensor t(s);
  const std::uint64_t key = splitmix64(seed);
  const float span = high - low;
  for (std::size_t i = 0; i < t.values.size(); ++i) {
    // 24 random bits -> [0, 1) exactly representable in float.
    const auto bits = static_cast<std::uint32_t>(splitmix64(key ^ (i * 0xD1B54A32D192ED03ULL)) >> 40);
    t.values[i] = low + span * (static_cast<float>(bits) * 0x1.0p-24f);
  }
  return t;
}

}  // namespace kbench
