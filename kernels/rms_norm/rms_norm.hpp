#pragma once
// rms_norm: y = x / sqrt(mean(x^2) + eps) * w over the last dim of x [M, N], float32, eps = 1e-6.
// Inputs: x [M, N], w [N]. One pass for the sum of squares, one to normalize. Memory bound: 8 bytes per
// element of x plus the weights.

#include <kbench/host_tensor.hpp>
#include <kbench/suite/kernel.hpp>

#include <vector>

namespace kbench::kernels {

[[nodiscard]] launcher bind_rms_norm_cpu(const kernel_args& args);     // cpu.cpp
[[nodiscard]] launcher bind_rms_norm_opencl(const kernel_args& args);  // opencl.cpp
[[nodiscard]] launcher bind_rms_norm_cuda(const kernel_args& args);    // cuda.cpp

}  // namespace kbench::kernels
