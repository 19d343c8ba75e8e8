// layer_norm on CUDA: layer norm over each row of x [rows, n], float32, two-pass statistics. Compiled at run
// time by NVRTC. One block of BLOCK threads per row; thread t walks elements t, t + BLOCK, ... (coalesced).
// Three walks over the row: the sum (-> mean), the sum of squared deviations from the mean (-> biased
// variance, as torch), then y = (x - mean) * rstd * w + b; each sum is reduced by warp shuffles, then across
// warps through shared memory. The second and third walks mostly hit L1/L2 (a row is a few KiB). Any n works:
// a thread with no element contributes 0 to the sums. Config (build defines): BLOCK = threads per block, a
// multiple of 32 up to 1024.

#ifndef EPS
#define EPS 1e-5f
#endif

#define KB_WARPS (BLOCK / 32)

__device__ __forceinline__ float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

// The sum of one value per thread, returned to all of them. `scratch` holds KB_WARPS + 1 floats; the first
// __syncthreads also keeps a previous call's readers of scratch[KB_WARPS] ahead of this call's writers.
__device__ __forceinline__ float block_sum(float v, float* scratch) {
  const int tid = threadIdx.x;
  v = warp_sum(v);
  __syncthreads();
  if (tid % 32 == 0) scratch[tid / 32] = v;
  __syncthreads();
  if (tid < 32) {
    v = warp_sum(tid < KB_WARPS ? scratch[tid] : 0.0f);
    if (tid == 0) scratch[KB_WARPS] = v;
  }
  __syncthreads();
  return scratch[KB_WARPS];
}

extern "C" __global__ void __launch_bounds__(BLOCK)
    layer_norm_f32(const float* __restrict__ x, const float* __restrict__ w, const float* __restrict__ b,
                   float* __restrict__ y, long long n) {
  __shared__ float scratch[KB_WARPS + 1];
  const int tid = threadIdx.x;
  const float* xr = x + (long long)blockIdx.x * n;
  float* yr = y + (long long)blockIdx.x * n;

  float sum = 0.0f;
  for (long long j = tid; j < n; j += BLOCK) sum += xr[j];
  const float mean = block_sum(sum, scratch) / (float)n;

  float squares = 0.0f;
  for (long long j = tid; j < n; j += BLOCK) {
    const float d = xr[j] - mean;
    squares += d * d;
  }
  const float rstd = 1.0f / sqrtf(block_sum(squares, scratch) / (float)n + EPS);  // IEEE sqrt and division

  for (long long j = tid; j < n; j += BLOCK) yr[j] = (xr[j] - mean) * rstd * w[j] + b[j];
}
