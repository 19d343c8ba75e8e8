#pragma once
// exp: y = exp(x) elementwise over float32, the first kernel of the suite (memory bound: 8 bytes per
// element).

#include <kbench/host_tensor.hpp>
#include <kbench/suite/kernel.hpp>

#include <vector>

namespace kbench::kernels {

[[nodiscard]] launcher bind_exp_cpu(const kernel_args& args);     // cpu.cpp
[[nodiscard]] launcher bind_exp_opencl(const kernel_args& args);  // opencl.cpp
[[nodiscard]] launcher bind_exp_cuda(const kernel_args& args);    // cuda.cpp

}  // namespace kbench::kernels
