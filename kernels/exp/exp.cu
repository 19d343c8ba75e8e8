// exp on CUDA: y = exp(x) elementwise over n float32 values. Compiled at run time by NVRTC.
// Config (build defines): BLOCK = threads per block; VEC = elements per thread per step (1, 2 or 4), loaded
// and stored as one float2/float4 so that a warp moves whole 128-byte lines. Thread t of the grid owns the
// vector [t*VEC, t*VEC + VEC), then strides by the whole grid; the host launches ceil(n / (BLOCK*VEC)) blocks
// (capped), so one step usually covers everything and the stride loop only guards the cap. The last vector
// may be partial (the tail, done element by element). expf rather than __expf: the result has to match the
// torch reference to ~1e-6 relative (expf: 2 ulp).

extern "C" __global__ void __launch_bounds__(BLOCK)
    exp_f32(const float* __restrict__ x, float* __restrict__ y, long long n) {
  const long long stride = (long long)gridDim.x * BLOCK * VEC;
  for (long long i = ((long long)blockIdx.x * BLOCK + threadIdx.x) * VEC; i < n; i += stride) {
    if (i + VEC <= n) {
      // i is a multiple of VEC and cuMemAlloc aligns to 256 bytes, so the vector access is aligned.
#if VEC == 4
      const float4 v = *reinterpret_cast<const float4*>(x + i);
      *reinterpret_cast<float4*>(y + i) = make_float4(expf(v.x), expf(v.y), expf(v.z), expf(v.w));
#elif VEC == 2
      const float2 v = *reinterpret_cast<const float2*>(x + i);
      *reinterpret_cast<float2*>(y + i) = make_float2(expf(v.x), expf(v.y));
#else
      y[i] = expf(x[i]);
#endif
    } else {
      for (long long j = i; j < n; ++j) y[j] = expf(x[j]);
    }
  }
}
