// swiglu on the cpu backend: out = a * silu(b) row by row over W-float vectors (kernels/common/cpu_simd.hpp),
// in one pass over x (torch's baseline makes two: silu, then the product). libm's expf is a call per element
// that stops vectorization, so silu uses the polynomial exp of cpu_simd.hpp. Config: ISA = the vector
// instructions (sse2, avx2, avx512: 4, 8 or 16 lanes); ROWS = rows per task of the dynamically scheduled
// parallel loop (ROWS >= M runs serially on the stream's thread, without waking the pool); STREAM = 1 writes
// the output with non-temporal stores (saves the read-for-ownership once it is too large for the cache).

#include "../common/cpu_gated_rows.hpp"
#include "swiglu.hpp"

namespace kbench::kernels {

namespace {

/// silu(b) = b / (1 + exp(-b)), relative error < 3e-7 (simd::exp's degree-5 polynomial: 1.7e-7). exp(-b) is
/// clamped to [1.6e-38, 1.7e38]: silu(b) = b for b > 87, and ~b * 6e-39 for b < -88, where b * exp(b) is
/// smaller still: both far inside the tolerance (1e-5 absolute).
template <int W>
struct silu {
  [[gnu::always_inline]] simd::f32v<W> operator()(const simd::f32v<W>& b) const {
    return b / (simd::exp<W>(-b) + 1.0f);
  }
};

}  // namespace

launcher bind_swiglu_cpu(const kernel_args& args) {
  return cpu_gated::bind_rows<silu>(args, "swiglu");
}

}  // namespace kbench::kernels
