// geglu on CUDA: gate = gelu(b) = b / 2 * (1 + erff(b / sqrt(2))), erff (2 ulp) rather than a tanh
// approximation, to match torch's exact gelu to ~1e-5. The kernel is kernels/common/gated_rows.cu, embedded
// after this file; compiled at run time by NVRTC.

__device__ __forceinline__ float gate(float b) {
  return 0.5f * b * (1.0f + erff(b * 0.70710678118654752f));
}
