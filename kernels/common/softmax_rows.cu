// softmax over rows on CUDA (softmax_two_pass: x [rows, n]; batch_softmax: x [B, M, n] as B * M rows):
// y = softmax(x) over each row, float32, two passes over the row.
// Compiled at run time by NVRTC. One block of BLOCK threads per row. Pass 1: thread t walks elements t,
// t + BLOCK, ... (coalesced) keeping a running max m and sum s of exp(x - m); partials are merged by warp
// shuffles, then across warps through shared memory (s rescaled to the larger max). Pass 2: y = exp(x - m) /
// s. Any n works: a thread with no element holds the neutral partial (m = -INFINITY, s = 0). Config (build
// defines): BLOCK = threads per block, a multiple of 32 up to 1024. expf rather than __expf: the result has
// to match the torch reference to ~1e-6 relative (expf: 2 ulp).

#define KB_WARPS (BLOCK / 32)

// Merges the partial (mb, sb) into (m, s); an empty partial (max -INFINITY) must not produce
// expf(-inf - -inf) = NaN, hence the guards.
__device__ __forceinline__ void merge(float& m, float& s, float mb, float sb) {
  if (mb == -INFINITY) return;
  if (m == -INFINITY) {
    m = mb;
    s = sb;
    return;
  }
  const float mx = fmaxf(m, mb);
  s = s * expf(m - mx) + sb * expf(mb - mx);
  m = mx;
}

__device__ __forceinline__ void warp_merge(float& m, float& s) {
  for (int offset = 16; offset > 0; offset >>= 1) {
    const float mb = __shfl_xor_sync(0xffffffffu, m, offset);
    const float sb = __shfl_xor_sync(0xffffffffu, s, offset);
    merge(m, s, mb, sb);
  }
}

extern "C" __global__ void __launch_bounds__(BLOCK)
    softmax_rows_f32(const float* __restrict__ x, float* __restrict__ y, long long n) {
  __shared__ float warp_max[KB_WARPS];
  __shared__ float warp_sum[KB_WARPS];
  __shared__ float row_stats[2];  // max, 1 / sum
  const int tid = threadIdx.x;
  const float* xr = x + (long long)blockIdx.x * n;
  float* yr = y + (long long)blockIdx.x * n;

  // Pass 1, online: one expf per element, of (smaller - larger) of the old max and the new value.
  float m = -INFINITY;
  float s = 0.0f;
  for (long long j = tid; j < n; j += BLOCK) {
    const float v = xr[j];
    const float mx = fmaxf(m, v);
    const float e = expf(fminf(m, v) - mx);  // expf(-inf) = 0 on the first element
    s = v > m ? s * e + 1.0f : s + e;
    m = mx;
  }
  warp_merge(m, s);
  if (tid % 32 == 0) {
    warp_max[tid / 32] = m;
    warp_sum[tid / 32] = s;
  }
  __syncthreads();
  if (tid < 32) {
    m = tid < KB_WARPS ? warp_max[tid] : -INFINITY;
    s = tid < KB_WARPS ? warp_sum[tid] : 0.0f;
    warp_merge(m, s);
    if (tid == 0) {
      row_stats[0] = m;
      row_stats[1] = 1.0f / s;
    }
  }
  __syncthreads();
  const float row_max = row_stats[0];
  const float inv_sum = row_stats[1];

  // Pass 2.
  for (long long j = tid; j < n; j += BLOCK) yr[j] = expf(xr[j] - row_max) * inv_sum;
}
