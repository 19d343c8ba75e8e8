#pragma once
// Host-side float32 tensors: kernel inputs, reference outputs, and outputs read back from a device.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kbench {

using shape = std::vector<std::int64_t>;

/// "[1024,256]": the form used in tables, JSON and cache keys.
[[nodiscard]] std::string to_string(const shape& s);
/// Parses "104857600", "[1024,256]", "1024,256" or "1024x256"; throws usage_error on anything else.
[[nodiscard]] shape parse_shape(std::string_view text);
/// Number of elements (1 for a scalar shape []).
[[nodiscard]] std::int64_t element_count(const shape& s);

/// A dense row-major float32 tensor in host memory.
struct host_tensor {
  kbench::shape shape;
  std::vector<float> values;

  host_tensor() = default;
  explicit host_tensor(kbench::shape s)
      : shape(std::move(s)), values(static_cast<std::size_t>(element_count(shape))) {}
  [[nodiscard]] std::size_t size() const { return values.size(); }
  [[nodiscard]] std::size_t bytes() const { return values.size() * sizeof(float); }
};

/// Deterministic inputs: `count` floats uniform in [low, high) from a counter-based generator keyed by
/// `seed`, the same on every machine and backend.
[[nodiscard]] host_tensor uniform_tensor(const shape& s, std::uint64_t seed, float low, float high);

}  // namespace kbench
