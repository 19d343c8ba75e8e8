#pragma once
// add: z = x + y elementwise over float32 (memory bound: 12 bytes per element, two reads and one write).

#include <kbench/host_tensor.hpp>
#include <kbench/suite/kernel.hpp>

#include <vector>

namespace kbench::kernels {

[[nodiscard]] launcher bind_add_cpu(const kernel_args& args);     // cpu.cpp
[[nodiscard]] launcher bind_add_opencl(const kernel_args& args);  // opencl.cpp
[[nodiscard]] launcher bind_add_cuda(const kernel_args& args);    // cuda.cpp

}  // namespace kbench::kernels
