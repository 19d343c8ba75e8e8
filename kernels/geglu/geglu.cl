// geglu on OpenCL: GATE = gelu(b) = b / 2 * (1 + erf(b / sqrt(2))), plain erf rather than an approximation,
// to match torch to ~1e-5. The kernel is kernels/common/gated_rows.cl, embedded after this file.

// Works on float and on floatN alike (erf is a gentype builtin).
#define GATE(b) (0.5f * (b) * (1.0f + erf((b) * M_SQRT1_2_F)))
