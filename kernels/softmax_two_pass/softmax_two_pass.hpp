#pragma once
// softmax_two_pass: row softmax over the last dim of x [M, N], float32, with exactly two passes over each
// row: pass 1 finds the row max and the sum of exp(x - max) together (online rescaling: the running sum is
// scaled by exp(old max - new max) whenever the max grows), pass 2 writes y = exp(x - max) / sum (the cpu
// implementation stores exp(x - a reference near the running max) in pass 1 and rescales it in pass 2: one
// exp per element). Memory bound: 8 bytes per element at least (one read for each pass; the second usually
// hits the cache for rows of a few KiB).

#include <kbench/host_tensor.hpp>
#include <kbench/suite/kernel.hpp>

#include <vector>

namespace kbench::kernels {

[[nodiscard]] launcher bind_softmax_two_pass_cpu(const kernel_args& args);     // cpu.cpp
[[nodiscard]] launcher bind_softmax_two_pass_opencl(const kernel_args& args);  // opencl.cpp
[[nodiscard]] launcher bind_softmax_two_pass_cuda(const kernel_args& args);    // cuda.cpp

}  // namespace kbench::kernels
