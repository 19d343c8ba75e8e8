#pragma once
// sum: row reduction over float32, x [M, N] -> out [M], out[r] = sum over j of x[r, j]. Memory bound: 4 bytes
// read per input element (plus 4 per row written).

#include <kbench/host_tensor.hpp>
#include <kbench/suite/kernel.hpp>

#include <vector>

namespace kbench::kernels {

[[nodiscard]] launcher bind_sum_cpu(const kernel_args& args);     // cpu.cpp
[[nodiscard]] launcher bind_sum_opencl(const kernel_args& args);  // opencl.cpp
[[nodiscard]] launcher bind_sum_cuda(const kernel_args& args);    // cuda.cpp

}  // namespace kbench::kernels
