// bmm on OpenCL: C[b] = A[b] @ B[b], float32, A [batch, m, k], B [batch, k, n], C [batch, m, n], row-major.
// Classic local-memory tiling: a TILE x TILE work-group computes a TILE x TILE tile of C, one element per
// work-item; over k in steps of TILE it stages a TILE x TILE tile of A and of B in local memory (each
// work-item loads one element of each), so every global element is read m/TILE or n/TILE times instead of n
// or m times. NDRange: dim 0 = columns of C, dim 1 = rows, dim 2 = batch; both sizes rounded up to TILE, and
// tiles that overhang m, n or k are padded with zeros on load and not stored. Config (build defines): TILE =
// tile edge [elements]; the work-group is TILE x TILE work-items.

#ifndef TILE
#define TILE 16
#endif
#if TILE < 1
#error "TILE must be positive"
#endif

__kernel __attribute__((reqd_work_group_size(TILE, TILE, 1))) void bmm(__global const float* restrict a,
                                                                       __global const float* restrict b,
                                                                       __global float* restrict c,
                                                                       const int m, const int n,
                                                                       const int k) {
  // +1 column on B's tile: a column walk over it would otherwise hit one local-memory bank on GPUs.
  __local float a_tile[TILE][TILE];
  __local float b_tile[TILE][TILE + 1];
  const int tx = (int)get_local_id(0);
  const int ty = (int)get_local_id(1);
  const int col = (int)get_global_id(0);
  const int row = (int)get_global_id(1);
  const long batch = (long)get_global_id(2);
  __global const float* ab = a + batch * m * k;
  __global const float* bb = b + batch * k * n;

  float acc = 0.0f;
  for (int k0 = 0; k0 < k; k0 += TILE) {
    const int a_col = k0 + tx;
    const int b_row = k0 + ty;
    a_tile[ty][tx] = (row < m && a_col < k) ? ab[(long)row * k + a_col] : 0.0f;
    b_tile[ty][tx] = (b_row < k && col < n) ? bb[(long)b_row * n + col] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int kk = 0; kk < TILE; ++kk) {
      acc += a_tile[ty][kk] * b_tile[kk][tx];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (row < m && col < n) {
    c[batch * m * n + (long)row * n + col] = acc;
  }
}
