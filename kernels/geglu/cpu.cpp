// geglu on the cpu backend: out = a * gelu(b) row by row over W-float vectors (kernels/common/cpu_simd.hpp),
// in one pass over x (torch's baseline makes two: gelu, then the product). libm's erff is a call per element
// that stops vectorization, so gelu is computed with plain arithmetic: a rational approximation of erf.
// Config: ISA = the vector instructions (sse2, avx2, avx512: 4, 8 or 16 lanes); ROWS = rows per task of the
// dynamically scheduled parallel loop (ROWS >= M runs serially on the stream's thread, without waking the
// pool); STREAM = 1 writes the output with non-temporal stores (saves the read-for-ownership once it is too
// large for the cache).

#include "../common/cpu_gated_rows.hpp"
#include "geglu.hpp"

namespace kbench::kernels {

namespace {

/// gelu(b) = b / 2 * (1 + erf(x)), x = b / sqrt(2), with erf(x) as the rational function x P(x^2) / Q(x^2)
/// (degrees 13 and 8) on x clamped to [-4, 4] (beyond, erf is +-1 to a float's precision), with the
/// coefficients of Eigen's float erf: |error| <= 3.9e-7 for |x| <= 2.83 (the suite's inputs, b in [-4, 4))
/// against erf in double. 19 vector operations, one a division. Torch's formula (Abramowitz & Stegun 7.1.26,
/// |error| <= 1.5e-7, used here before) takes about 35 with a division and an exp, which kept this kernel
/// compute-bound (docs/code-figures.md). Like torch's, it forms 1 + erf(x) and so loses relative accuracy in
/// gelu's negative tail, where erf ~ -1 (see the tolerance in geglu.cpp).
template <int W>
struct gelu {
  [[gnu::always_inline]] simd::f32v<W> operator()(const simd::f32v<W>& b) const {
    using v = simd::f32v<W>;
    const v x = simd::clamp_keeping_nan<W>(b * 0.70710678118654752f, v{} - 4.0f, v{} + 4.0f);  // b / sqrt(2)
    const v x2 = x * x;
    v p = x2 * -2.72614225801306e-10f + 2.77068142495902e-08f;
    p = p * x2 - 2.10102402082508e-06f;
    p = p * x2 - 5.69250639462346e-05f;
    p = p * x2 - 7.34990630326855e-04f;
    p = p * x2 - 2.95459980854025e-03f;
    p = p * x2 - 1.60960333262415e-02f;
    v q = x2 * -1.45660718464996e-05f - 2.13374055278905e-04f;
    q = q * x2 - 1.68282697438203e-03f;
    q = q * x2 - 7.37332916720468e-03f;
    q = q * x2 - 1.42647390514189e-02f;
    return b * 0.5f * (x * p / q + 1.0f);
  }
};

}  // namespace

launcher bind_geglu_cpu(const kernel_args& args) {
  return cpu_gated::bind_rows<gelu>(args, "geglu");
}

}  // namespace kbench::kernels
