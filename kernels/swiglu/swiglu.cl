// swiglu on OpenCL: GATE = silu(b) = b / (1 + exp(-b)), plain exp rather than native_exp, to match torch to
// ~1e-5. The kernel is kernels/common/gated_rows.cl, embedded after this file.

// Works on float and on floatN alike (exp is a gentype builtin).
#define GATE(b) ((b) / (1.0f + exp(-(b))))
