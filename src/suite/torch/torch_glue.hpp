#pragma once
// Glue for the kernels' torch references and baselines. Includes ATen: only translation units of the
// kbench_torch target (precompiled <ATen/ATen.h>) may include this header.

#include <kbench/host_tensor.hpp>
#include <kbench/suite/kernel.hpp>

#include <ATen/ATen.h>

#include <functional>
#include <vector>

namespace kbench::suite::torch_glue {

/// A float32 CPU tensor viewing `t`'s memory (no copy; `t` must outlive it).
[[nodiscard]] at::Tensor view(host_tensor& t);
[[nodiscard]] at::Tensor view(const host_tensor& t);
/// A float32 CPU tensor of `s` viewing a host buffer of the torch device (no copy).
[[nodiscard]] at::Tensor view(const buffer_ptr& b, const shape& s);
/// Copies a tensor's values into a host_tensor (contiguous float32).
[[nodiscard]] host_tensor to_host(const at::Tensor& t);

/// A launcher for a synchronous torch call: runs `body`, timing it on the host's steady clock, and returns a
/// completed event with that interval plus `outputs` (so device time = wall time for the baseline). The
/// binding's config may set the baseline's thread count (baseline_setting.hpp: "threads"); each call first
/// switches libtorch's intra-op pool to it when another binding left a different count.
[[nodiscard]] launcher synchronous_launcher(const kernel_args& args, std::function<void()> body,
                                            std::vector<buffer_ptr> outputs);

}  // namespace kbench::suite::torch_glue
