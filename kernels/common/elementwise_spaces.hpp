#pragma once
// Tuning spaces shared by the elementwise kernels (exp, add, low_mem_dropout over elements; geglu, swiglu
// over rows). Not a kernel folder: it has no CMakeLists.txt, and kernels include it by relative path.
//
// cpu (kernels/common/cpu_simd.hpp): ISA = vector instructions, a task size (elements or rows per task of the
// dynamically scheduled loop), STREAM = non-temporal stores. opencl: WG = work-group size, VEC = elements per
// work-item (one vector). cuda: BLOCK = threads per block, VEC = elements per thread.

#include <kbench/config.hpp>
#include <kbench/device.hpp>
#include <kbench/tune/space.hpp>

#include "cpu_simd.hpp"

#include <bit>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace kbench::kernels::spaces {

/// The cpu default: the widest ISA of the host, `task` items per task, normal stores.
inline config cpu_default(const std::string& task_name, std::int64_t task) {
  return {{"ISA", simd::best_isa()}, {task_name, task}, {"STREAM", 0}};
}

/// cpu: ISA (those the host runs), `task_name` (power of two from `low` to `high`, items per task) and STREAM
/// (0/1), over `items` items whose output takes `output_bytes`. Every task size >= items runs serially, so
/// only the first such (< 2 * items) is kept, plus the default; STREAM only where the output is large enough
/// for it to matter.
inline tune::space cpu_tasks(const std::string& task_name, std::int64_t items, std::int64_t low,
                             std::int64_t high, std::int64_t output_bytes, config default_config) {
  tune::space s;
  simd::add_isa(s);
  s.add(tune::parameter::power_of_two(task_name, low, high));
  simd::add_stream(s, output_bytes);
  const std::int64_t default_task = default_config.at(task_name);
  s.add_constraint(task_name + " < 2 * items (larger ones are all serial) or the default",
                   [task_name, items, default_task](const config& c, const device_info&) {
                     const std::int64_t task = c.at(task_name);
                     return task < 2 * items || task == default_task;
                   });
  s.set_default(std::move(default_config));
  return s;
}

/// opencl: WG (power of two from 16 to 1024, at most the device's work-group size) and VEC (`vec_values`,
/// elements per work-item as one vector) over rows of `row` elements. A work-group covers WG * VEC elements;
/// configs where that exceeds the row (rounded up to a power of two) leave most work-items idle and are
/// dropped, except the default.
inline tune::space opencl_vectors(std::int64_t row, std::vector<std::int64_t> vec_values,
                                  config default_config) {
  tune::space s;
  s.add(tune::parameter::power_of_two("WG", 16, 1024).block_size())
      .add(tune::parameter::integers("VEC", std::move(vec_values)));
  s.add_constraint("work-group size <= device maximum", [](const config& c, const device_info& d) {
    return d.max_work_group_size == 0 || c.at("WG") <= static_cast<std::int64_t>(d.max_work_group_size);
  });
  const auto row_span =
      static_cast<std::int64_t>(std::bit_ceil(static_cast<std::uint64_t>(row > 0 ? row : 1)));
  s.add_constraint("WG * VEC <= the row rounded up to a power of two, or the default",
                   [row_span, default_config](const config& c, const device_info&) {
                     return c.at("WG") * c.at("VEC") <= row_span || c == default_config;
                   });
  s.set_default(std::move(default_config));
  return s;
}

/// cuda: BLOCK (power of two from 32, one warp, to 1024, at most the device's block size) and VEC (1, 2, 4:
/// float, float2, float4 accesses).
inline tune::space cuda_blocks(config default_config) {
  tune::space s;
  s.add(tune::parameter::power_of_two("BLOCK", 32, 1024).block_size())
      .add(tune::parameter::integers("VEC", {1, 2, 4}));
  s.add_constraint("block size <= device maximum", [](const config& c, const device_info& d) {
    return d.max_work_group_size == 0 || c.at("BLOCK") <= static_cast<std::int64_t>(d.max_work_group_size);
  });
  s.set_default(std::move(default_config));
  return s;
}

}  // namespace kbench::kernels::spaces
