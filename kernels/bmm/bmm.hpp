#pragma once
// bmm: batched matmul C[b] = A[b] @ B[b], float32. The registered shape is [B, M, N, K]: A [B, M, K],
// B [B, K, N], C [B, M, N], all row-major and contiguous. Compute bound: 2 * B * M * N * K flops.

#include <kbench/host_tensor.hpp>
#include <kbench/suite/kernel.hpp>

#include <cstdint>
#include <vector>

namespace kbench::kernels {

/// The problem sizes of a bmm shape [B, M, N, K]; throws kbench::error naming `who` unless it has 4 positive
/// dims.
struct bmm_dims {
  std::int64_t batch = 0;
  std::int64_t m = 0;
  std::int64_t n = 0;
  std::int64_t k = 0;
};
[[nodiscard]] bmm_dims parse_bmm_shape(const shape& s, const char* who);  // bmm.cpp

[[nodiscard]] launcher bind_bmm_cpu(const kernel_args& args);  // cpu.cpp
/// Whether the cpu micro-kernel exists for register-tile height `mr` with ISA value `isa` (cpu.cpp).
[[nodiscard]] bool bmm_cpu_mr_fits(std::int64_t isa, std::int64_t mr);
[[nodiscard]] launcher bind_bmm_opencl(const kernel_args& args);  // opencl.cpp
[[nodiscard]] launcher bind_bmm_cuda(const kernel_args& args);    // cuda.cpp

}  // namespace kbench::kernels
