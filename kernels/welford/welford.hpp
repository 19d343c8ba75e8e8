#pragma once
// welford: layer norm over the last dim of x [M, N], float32, with the statistics from Welford's running
// mean / sum of squared deviations (one pass over the row; partials of several workers merged with Chan's
// parallel formula), then y = (x - mean) / sqrt(var + eps) * w + b with eps = 1e-5 and the biased variance
// (divided by N, as torch's layer_norm). Inputs: x [M, N], w [N], b [N]. Memory bound: 8 bytes per element of
// x plus the weights.

#include <kbench/host_tensor.hpp>
#include <kbench/suite/kernel.hpp>

#include <vector>

namespace kbench::kernels {

[[nodiscard]] launcher bind_welford_cpu(const kernel_args& args);     // cpu.cpp
[[nodiscard]] launcher bind_welford_opencl(const kernel_args& args);  // opencl.cpp
[[nodiscard]] launcher bind_welford_cuda(const kernel_args& args);    // cuda.cpp

}  // namespace kbench::kernels
