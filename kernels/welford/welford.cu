// welford on CUDA: layer norm over each row of x [rows, n], float32, statistics by Welford + Chan. Compiled
// at run time by NVRTC. One block of BLOCK threads per row. Thread t runs Welford's update over elements t,
// t + BLOCK, ... (coalesced): count, mean and m2 (sum of squared deviations). Partials are merged with Chan's
// parallel formula by warp shuffles, then across warps through shared memory; then every thread writes
// y = (x - mean) * rstd * w + b over its elements, rstd = 1 / sqrt(m2 / n + EPS) (biased variance, as torch).
// Any n works: a thread with no element holds the empty partial (count 0), which the merge skips.
// Config (build defines): BLOCK = threads per block, a multiple of 32 up to 1024.

#ifndef EPS
#define EPS 1e-5f
#endif

#define KB_WARPS (BLOCK / 32)

// Chan, Golub and LeVeque: merges the moments (nb, mean_b, m2_b) of a disjoint set into (na, mean_a, m2_a).
__device__ __forceinline__ void merge(float& na, float& mean_a, float& m2_a, float nb, float mean_b,
                                      float m2_b) {
  if (nb == 0.0f) return;
  const float n = na + nb;
  const float delta = mean_b - mean_a;
  const float b_share = nb / n;
  m2_a = m2_a + m2_b + delta * delta * na * b_share;
  mean_a = mean_a + delta * b_share;
  na = n;
}

__device__ __forceinline__ void warp_merge(float& count, float& mean, float& m2) {
  for (int offset = 16; offset > 0; offset >>= 1) {
    const float nb = __shfl_xor_sync(0xffffffffu, count, offset);
    const float mean_b = __shfl_xor_sync(0xffffffffu, mean, offset);
    const float m2_b = __shfl_xor_sync(0xffffffffu, m2, offset);
    merge(count, mean, m2, nb, mean_b, m2_b);
  }
}

extern "C" __global__ void __launch_bounds__(BLOCK)
    welford_f32(const float* __restrict__ x, const float* __restrict__ w, const float* __restrict__ b,
                float* __restrict__ y, long long n) {
  __shared__ float warp_count[KB_WARPS];
  __shared__ float warp_mean[KB_WARPS];
  __shared__ float warp_m2[KB_WARPS];
  __shared__ float row_stats[2];  // mean, rstd
  const int tid = threadIdx.x;
  const float* xr = x + (long long)blockIdx.x * n;
  float* yr = y + (long long)blockIdx.x * n;

  float count = 0.0f;  // exact in float up to 2^24 elements
  float mean = 0.0f;
  float m2 = 0.0f;
  for (long long j = tid; j < n; j += BLOCK) {
    const float v = xr[j];
    count += 1.0f;
    const float delta = v - mean;
    mean += delta / count;
    m2 += delta * (v - mean);
  }
  warp_merge(count, mean, m2);
  if (tid % 32 == 0) {
    warp_count[tid / 32] = count;
    warp_mean[tid / 32] = mean;
    warp_m2[tid / 32] = m2;
  }
  __syncthreads();
  if (tid < 32) {
    count = tid < KB_WARPS ? warp_count[tid] : 0.0f;
    mean = tid < KB_WARPS ? warp_mean[tid] : 0.0f;
    m2 = tid < KB_WARPS ? warp_m2[tid] : 0.0f;
    warp_merge(count, mean, m2);
    if (tid == 0) {
      row_stats[0] = mean;
      row_stats[1] = 1.0f / sqrtf(m2 / count + EPS);  // IEEE sqrt and division, like the cpu path
    }
  }
  __syncthreads();
  const float row_mean = row_stats[0];
  const float rstd = row_stats[1];

  for (long long j = tid; j < n; j += BLOCK) yr[j] = (xr[j] - row_mean) * rstd * w[j] + b[j];
}
