#pragma once
// layer_norm: y = (x - mean) / sqrt(var + eps) * w + b over the last dim of x [M, N], float32, eps = 1e-5,
// biased variance (divided by N, as torch's layer_norm). Inputs: x [M, N], w [N], b [N]. Statistics by the
// classic two-pass method in float: mean = sum(x) / N, then var = sum((x - mean)^2) / N. Chosen over one pass
// of sum and sum of squares, whose var = E[x^2] - mean^2 cancels catastrophically in float when |mean| is
// large against the standard deviation; the price is one more read of the row, which comes from the cache for
// rows of a few KiB. Memory bound: 8 bytes per element of x plus the weights.

#include <kbench/host_tensor.hpp>
#include <kbench/suite/kernel.hpp>

#include <vector>

namespace kbench::kernels {

[[nodiscard]] launcher bind_layer_norm_cpu(const kernel_args& args);     // cpu.cpp
[[nodiscard]] launcher bind_layer_norm_opencl(const kernel_args& args);  // opencl.cpp
[[nodiscard]] launcher bind_layer_norm_cuda(const kernel_args& args);    // cuda.cpp

}  // namespace kbench::kernels
