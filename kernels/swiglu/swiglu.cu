// swiglu on CUDA: gate = silu(b) = b / (1 + expf(-b)), expf (2 ulp) and a true division rather than
// __expf/__fdividef, to match torch to ~1e-5. The kernel is kernels/common/gated_rows.cu, embedded after this
// file; compiled at run time by NVRTC.

__device__ __forceinline__ float gate(float b) {
  return b / (1.0f + expf(-b));
}
