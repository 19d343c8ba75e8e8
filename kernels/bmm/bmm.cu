// bmm on CUDA: C[b] = A[b] @ B[b], float32, A [batch, m, k], B [batch, k, n], C [batch, m, n], row-major.
// Compiled at run time by NVRTC. Shared-memory tiling: a TILE x TILE block computes a TILE x TILE tile of C,
// one element per thread; over k in steps of TILE it stages a tile of A and of B in shared memory (each
// thread loads one element of each, coalesced along rows), so every global element is read m/TILE or n/TILE
// times. Grid: x = column tiles, y = row tiles, z = batch; tiles that overhang m, n or k are padded with
// zeros on load and not stored. Config (build defines): TILE = tile edge [elements], TILE * TILE <= 1024
// threads per block.

#ifndef TILE
#define TILE 16
#endif
#if TILE < 1 || TILE * TILE > 1024
#error "TILE must be in [1, 32]"
#endif

extern "C" __global__ void __launch_bounds__(TILE* TILE)
    bmm_f32(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int m, int n,
            int k) {
  // +1 column on B's tile: the column walk over it would otherwise hit one shared-memory bank.
  __shared__ float a_tile[TILE][TILE];
  __shared__ float b_tile[TILE][TILE + 1];
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int col = blockIdx.x * TILE + tx;
  const int row = blockIdx.y * TILE + ty;
  const long long batch = blockIdx.z;
  const float* ab = a + batch * m * k;
  const float* bb = b + batch * k * n;

  float acc = 0.0f;
  for (int k0 = 0; k0 < k; k0 += TILE) {
    const int a_col = k0 + tx;
    const int b_row = k0 + ty;
    a_tile[ty][tx] = (row < m && a_col < k) ? ab[(long long)row * k + a_col] : 0.0f;
    b_tile[ty][tx] = (b_row < k && col < n) ? bb[(long long)b_row * n + col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < TILE; ++kk) acc += a_tile[ty][kk] * b_tile[kk][tx];
    __syncthreads();
  }
  if (row < m && col < n) c[batch * m * n + (long long)row * n + col] = acc;
}
