// rms_norm on CUDA: y = x * rstd * w over each row of x [rows, n], float32, rstd = 1 / sqrt(mean(x^2) + EPS).
// Compiled at run time by NVRTC. One block of BLOCK threads per row; thread t walks elements t, t + BLOCK,
// ... (coalesced): the sum of squares, reduced by warp shuffles then across warps through shared memory, then
// the scaled output. The second walk mostly hits L1/L2 (a row is a few KiB). Any n works: a thread with no
// element contributes 0 to the sum. Config (build defines): BLOCK = threads per block, a multiple of 32 up to
// 1024.

#ifndef EPS
#define EPS 1e-6f
#endif

#define KB_WARPS (BLOCK / 32)

__device__ __forceinline__ float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

extern "C" __global__ void __launch_bounds__(BLOCK)
    rms_norm_f32(const float* __restrict__ x, const float* __restrict__ w, float* __restrict__ y,
                 long long n) {
  __shared__ float warp_part[KB_WARPS];
  __shared__ float row_rstd;
  const int tid = threadIdx.x;
  const float* xr = x + (long long)blockIdx.x * n;
  float* yr = y + (long long)blockIdx.x * n;

  float squares = 0.0f;
  for (long long j = tid; j < n; j += BLOCK) {
    const float v = xr[j];
    squares += v * v;
  }
  squares = warp_sum(squares);
  if (tid % 32 == 0) warp_part[tid / 32] = squares;
  __syncthreads();
  if (tid < 32) {
    squares = warp_sum(tid < KB_WARPS ? warp_part[tid] : 0.0f);
    if (tid == 0) row_rstd = 1.0f / sqrtf(squares / (float)n + EPS);  // IEEE sqrt and division
  }
  __syncthreads();
  const float rstd = row_rstd;

  for (long long j = tid; j < n; j += BLOCK) yr[j] = xr[j] * rstd * w[j];
}
