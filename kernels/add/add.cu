// add on CUDA: z = x + y elementwise over n float32 values. Compiled at run time by NVRTC.
// Config (build defines): BLOCK = threads per block; VEC = elements per thread per step (1, 2 or 4), loaded
// and stored as one float2/float4 so that a warp moves whole 128-byte lines. Thread t of the grid owns the
// vector [t*VEC, t*VEC + VEC), then strides by the whole grid; the host launches ceil(n / (BLOCK*VEC)) blocks
// (capped), so one step usually covers everything and the stride loop only guards the cap. The last vector
// may be partial (the tail, done element by element).

extern "C" __global__ void __launch_bounds__(BLOCK)
    add_f32(const float* __restrict__ x, const float* __restrict__ y, float* __restrict__ z, long long n) {
  const long long stride = (long long)gridDim.x * BLOCK * VEC;
  for (long long i = ((long long)blockIdx.x * BLOCK + threadIdx.x) * VEC; i < n; i += stride) {
    if (i + VEC <= n) {
      // i is a multiple of VEC and cuMemAlloc aligns to 256 bytes, so the vector accesses are aligned.
#if VEC == 4
      const float4 a = *reinterpret_cast<const float4*>(x + i);
      const float4 b = *reinterpret_cast<const float4*>(y + i);
      *reinterpret_cast<float4*>(z + i) = make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
#elif VEC == 2
      const float2 a = *reinterpret_cast<const float2*>(x + i);
      const float2 b = *reinterpret_cast<const float2*>(y + i);
      *reinterpret_cast<float2*>(z + i) = make_float2(a.x + b.x, a.y + b.y);
#else
      z[i] = x[i] + y[i];
#endif
    } else {
      for (long long j = i; j < n; ++j) z[j] = x[j] + y[j];
    }
  }
}
