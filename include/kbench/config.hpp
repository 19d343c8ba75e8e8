#pragma once
// A kernel configuration: named integer parameters (block sizes, vector widths, unroll factors, flags as
// 0/1). Backends turn it into compile-time defines (-DNAME=VALUE for OpenCL and NVRTC).

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace kbench {

using config = std::map<std::string, std::int64_t>;

/// Compact JSON object text, keys sorted: {"block":256,"vec":4}. Used in reports and cache keys.
[[nodiscard]] std::string to_json_text(const config& values);

/// The inverse of to_json_text: a JSON object of integers. Throws usage_error on anything else.
[[nodiscard]] config parse_config_text(std::string_view json_text);

/// "-DBLOCK=256 -DVEC=4": the build options that pass a config to OpenCL C or NVRTC sources.
[[nodiscard]] std::string to_define_flags(const config& values);

}  // namespace kbench
