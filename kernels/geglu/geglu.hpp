#pragma once
// geglu: the gated GELU of transformer feed-forward layers. The input x [M, 2N] is split along its last
// dimension into a = x[:, :N] and b = x[:, N:]; out [M, N] = a * gelu(b), with the exact erf GELU (torch's
// default): gelu(b) = b / 2 * (1 + erf(b / sqrt(2))). A registered shape is the OUTPUT shape [M, N]; the
// input is [M, 2N]. Memory bound: 12 bytes per output element (8 read, 4 written).

#include <kbench/host_tensor.hpp>
#include <kbench/suite/kernel.hpp>

#include <vector>

namespace kbench::kernels {

[[nodiscard]] launcher bind_geglu_cpu(const kernel_args& args);     // cpu.cpp
[[nodiscard]] launcher bind_geglu_opencl(const kernel_args& args);  // opencl.cpp
[[nodiscard]] launcher bind_geglu_cuda(const kernel_args& args);    // cuda.cpp

}  // namespace kbench::kernels
