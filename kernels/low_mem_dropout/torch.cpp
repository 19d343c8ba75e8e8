// low_mem_dropout's torch reference and baseline: the same counter-based stream as the kernels, computed with
// torch integer ops on int64 tensors (torch has no uint32 arithmetic). Every intermediate stays below 2^49,
// and
// "& 0xFFFFFFFF" after each step emulates uint32 wraparound, so no int64 operation ever overflows.
// The baseline runs the same ops into preallocated tensors (*_out variants and in-place ops): two int64
// temporaries and a bool mask of n elements each, allocated once at bind time.

#include <kbench/suite/registry.hpp>

#include "suite/torch/torch_glue.hpp"

#include "low_mem_dropout.hpp"

namespace kbench::kernels {

namespace {

constexpr std::int64_t low32 = 0xFFFFFFFF;

/// Preallocated tensors for the stream: h and tmp int64 [n], drop bool [n], key int64 [1] (+ its tmp).
struct dropout_workspace {
  at::Tensor h, tmp, drop, key, key_tmp;

  explicit dropout_workspace(std::int64_t n)
      : h(at::empty({n}, at::kLong)),
        tmp(at::empty({n}, at::kLong)),
        drop(at::empty({n}, at::kBool)),
        key(at::empty({1}, at::kLong)),
        key_tmp(at::empty({1}, at::kLong)) {}
};

/// h = h * c mod 2^32 in place, for 0 <= h < 2^32 and a uint32 constant c, without overflowing int64: with
/// c = c_hi * 2^16 + c_lo, h * c mod 2^32 = (h * c_lo + ((h * c_hi) mod 2^16) * 2^16) mod 2^32, every product
/// below 2^48.
void mul32_(at::Tensor& h, std::uint32_t c, at::Tensor& tmp) {
  const auto c_hi = static_cast<std::int64_t>(c >> 16);
  const auto c_lo = static_cast<std::int64_t>(c & 0xFFFFu);
  at::mul_out(tmp, h, c_hi);
  at::bitwise_and_out(tmp, tmp, 0xFFFF);
  at::bitwise_left_shift_out(tmp, tmp, 16);
  at::mul_out(h, h, c_lo);
  at::add_out(h, h, tmp);
  at::bitwise_and_out(h, h, low32);
}

/// h ^= h >> shift, in place.
void xorshift_(at::Tensor& h, std::int64_t shift, at::Tensor& tmp) {
  at::bitwise_right_shift_out(tmp, h, shift);
  at::bitwise_xor_out(h, h, tmp);
}

/// out = keep ? x / (1 - p) : 0 for x [n] float and seed [1] float (an exact integer), through `w`.
void dropout_into(at::Tensor& out, const at::Tensor& x, const at::Tensor& seed, dropout_workspace& w) {
  // key = seed * 0x85EBCA6B mod 2^32, a [1] tensor broadcast over the elements.
  w.key.copy_(seed);
  mul32_(w.key, low_mem_dropout_seed_mul, w.key_tmp);
  // h = lowbias32(i * 0x9E3779B1 ^ key) with i = 0..n-1.
  at::arange_out(w.h, x.numel());
  mul32_(w.h, low_mem_dropout_index_mul, w.tmp);
  at::bitwise_xor_out(w.h, w.h, w.key);
  xorshift_(w.h, 16, w.tmp);
  mul32_(w.h, low_mem_dropout_mix_mul1, w.tmp);
  xorshift_(w.h, 15, w.tmp);
  mul32_(w.h, low_mem_dropout_mix_mul2, w.tmp);
  xorshift_(w.h, 16, w.tmp);
  // u = (h >> 8) * 2^-24, exact in float32; `out` holds u until the mask is taken.
  at::bitwise_right_shift_out(w.tmp, w.h, 8);
  out.copy_(w.tmp);
  at::mul_out(out, out, 1.0 / 16777216.0);
  at::lt_out(w.drop, out, low_mem_dropout_p);  // drop = !(u >= p)
  at::div_out(out, x, 1.0 - static_cast<double>(low_mem_dropout_p));
  out.masked_fill_(w.drop, 0.0);
}

}  // namespace

namespace {

std::vector<host_tensor> reference(const std::vector<host_tensor>& inputs) {
  const at::Tensor x = torch_glue::view(inputs.at(0));
  const at::Tensor seed = torch_glue::view(inputs.at(1));
  dropout_workspace w(x.numel());
  at::Tensor out = at::empty_like(x);
  dropout_into(out, x, seed, w);
  return {torch_glue::to_host(out)};
}

launcher bind_torch(const kernel_args& args) {
  const std::int64_t n = element_count(args.shape);
  buffer_ptr output = output_buffer(args, 0, static_cast<std::size_t>(n) * sizeof(float));
  at::Tensor x = torch_glue::view(args.inputs.at(0), {n});
  at::Tensor seed = torch_glue::view(args.inputs.at(1), {1});
  at::Tensor y = torch_glue::view(output, {n});
  auto workspace = std::make_shared<dropout_workspace>(n);
  return torch_glue::synchronous_launcher(
      args, [x, seed, y, workspace]() mutable { dropout_into(y, x, seed, *workspace); }, {output});
}

}  // namespace

// The torch reference and baseline of the kernel in low_mem_dropout.cpp (built with libtorch only).
KBENCH_KERNEL_EXTENSION(low_mem_dropout_torch) {
  return kernel_builder("low_mem_dropout")
      .reference(&reference)
      .implement(backend_kind::torch, &bind_torch, {},
                 "the same hash stream in torch int64 ops (*_out into 2 preallocated int64 temporaries and a "
                 "bool mask) + at::div_out + masked_fill_; torch has no counter-based dropout");
}

}  // namespace kbench::kernels
