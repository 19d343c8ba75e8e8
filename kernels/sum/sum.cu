// sum on CUDA: out[r] = sum of x[r, 0:N], one block per row. Compiled at run time by NVRTC.
// Each of the BLOCK threads sums a strided part of the row (float4 loads when N % 4 == 0, so that every row
// start is 16-byte aligned given cuMemAlloc's 256-byte base; floats otherwise), then each warp reduces its 32
// partial sums with __shfl_down_sync, the warp leaders park them in shared memory, and the first warp reduces
// those. A block strides over rows when the host caps the grid.
// Config (build defines): BLOCK = threads per block, a multiple of 32 up to 1024 (so that one warp can finish
// the reduction of the BLOCK / 32 warp sums).

#ifndef BLOCK
#define BLOCK 256
#endif
#if BLOCK % 32 != 0 || BLOCK < 32 || BLOCK > 1024
#error "BLOCK must be a multiple of 32 in [32, 1024]"
#endif

#define WARPS (BLOCK / 32)

__device__ __forceinline__ float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

extern "C" __global__ void __launch_bounds__(BLOCK)
    sum_rows_f32(const float* __restrict__ x, float* __restrict__ y, long long rows, long long cols) {
  __shared__ float warp_sums[WARPS];
  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;
  for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
    const float* in = x + row * cols;
    float acc = 0.0f;
    if (cols % 4 == 0) {
      const float4* in4 = reinterpret_cast<const float4*>(in);
      for (long long j = threadIdx.x; j < cols / 4; j += BLOCK) {
        const float4 v = in4[j];
        acc += (v.x + v.y) + (v.z + v.w);
      }
    } else {
      for (long long j = threadIdx.x; j < cols; j += BLOCK) acc += in[j];
    }
    acc = warp_sum(acc);
    if (lane == 0) warp_sums[warp] = acc;
    __syncthreads();
    if (warp == 0) {
      acc = lane < WARPS ? warp_sums[lane] : 0.0f;
      acc = warp_sum(acc);
      if (lane == 0) y[row] = acc;
    }
    __syncthreads();  // warp_sums is reused by the next row
  }
}
