#pragma once
// low_mem_dropout: out[i] = keep(i) ? x[i] / (1 - p) : 0 with p = 0.5, where keep(i) comes from a
// counter-based random stream instead of a stored mask (hence "low memory": nothing but x and out crosses the
// bus, 8 bytes per element). The stream is a 32-bit integer hash of (seed, i), written identically in C++
// (here), OpenCL C (low_mem_dropout.cl), CUDA (low_mem_dropout.cu) and torch integer ops (torch.cpp), with
// 32-bit unsigned wraparound only, so that every backend draws bit-identical masks and is checked exactly.
//
// The stream, for element i (uint32) and seed s (uint32):
//   key = s * 0x85EBCA6B                        (spreads small seeds over all 32 bits)
//   h   = lowbias32(i * 0x9E3779B1 ^ key)       (golden-ratio multiply, then Wellons' lowbias32 finalizer:
//                                                h ^= h >> 16; h *= 0x7FEB352D; h ^= h >> 15; h *=
//                                                0x846CA68B; h ^= h >> 16)
//   u   = (h >> 8) * 2^-24                      (24 bits, exact in float32: u in [0, 1))
//   keep = u >= p
//
// Inputs: x [n] and the seed, a [1] tensor holding (seed + 1) mod 2^24 as an exact float32 (the suite's seed,
// offset so that it differs from x's). Kernels read the seed from device memory, as torch's CUDA dropout
// reads its Philox seed, so --seed changes the mask and binding needs no read-back. The element index must
// fit uint32 (n <= 2^32).

#include <kbench/host_tensor.hpp>
#include <kbench/suite/kernel.hpp>

#include <cstdint>
#include <vector>

namespace kbench::kernels {

inline constexpr float low_mem_dropout_p = 0.5f;  // drop probability; fixed (config values are integers)

inline constexpr std::uint32_t low_mem_dropout_seed_mul = 0x85EBCA6Bu;
inline constexpr std::uint32_t low_mem_dropout_index_mul = 0x9E3779B1u;
inline constexpr std::uint32_t low_mem_dropout_mix_mul1 = 0x7FEB352Du;
inline constexpr std::uint32_t low_mem_dropout_mix_mul2 = 0x846CA68Bu;

/// The stream's hash h(seed, i), see above.
[[nodiscard]] constexpr std::uint32_t low_mem_dropout_hash(std::uint32_t seed, std::uint32_t i) {
  std::uint32_t h = (i * low_mem_dropout_index_mul) ^ (seed * low_mem_dropout_seed_mul);
  h ^= h >> 16;
  h *= low_mem_dropout_mix_mul1;
  h ^= h >> 15;
  h *= low_mem_dropout_mix_mul2;
  h ^= h >> 16;
  return h;
}

[[nodiscard]] launcher bind_low_mem_dropout_cpu(const kernel_args& args);     // cpu.cpp
[[nodiscard]] launcher bind_low_mem_dropout_opencl(const kernel_args& args);  // opencl.cpp
[[nodiscard]] launcher bind_low_mem_dropout_cuda(const kernel_args& args);    // cuda.cpp

}  // namespace kbench::kernels
