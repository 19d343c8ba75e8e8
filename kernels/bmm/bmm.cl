// bmm on OpenCL: C[b] = A[b] @ B[b], float32, A [batch, m, k], B [batch, k, n], C [batch, m, n], row-major.
// Local-memory tiling with register blocking along rows: a work-group computes a TILE x TILE tile of C with
// TILE x (TILE / WPT) work-items; work-item (tx, ty) owns column tx and the WPT rows ty, ty + TILE / WPT, ...
// of the tile, its WPT sums in registers. Over k in steps of TILE the group stages a TILE x TILE tile of A and
// of B in local memory (each work-item loads WPT elements of each), so every global element is read m/TILE or
// n/TILE times instead of n or m times, and each B value read from local memory feeds WPT multiply-adds.
// NDRange: dim 0 = columns of C (rounded up to TILE), dim 1 = rows / WPT (rounded up to TILE / WPT), dim 2 =
// batch; tiles that overhang m, n or k are padded with zeros on load and not stored.
// Config (build defines): TILE = tile edge [elements]; WPT = rows of C per work-item (divides TILE).

#ifndef TILE
#define TILE 16
#endif
#ifndef WPT
#define WPT 1
#endif
#if TILE < 1
#error "TILE must be positive"
#endif
#if WPT < 1 || TILE % WPT != 0
#error "WPT must divide TILE"
#endif
#define RTS (TILE / WPT)  // work-items along the rows of a tile

__kernel __attribute__((reqd_work_group_size(TILE, RTS, 1))) void bmm(__global const float* restrict a,
                                                                      __global const float* restrict b,
                                                                      __global float* restrict c, const int m,
                                                                      const int n, const int k) {
  // +1 column on B's tile: a column walk over it would otherwise hit one local-memory bank on GPUs.
  __local float a_tile[TILE][TILE];
  __local float b_tile[TILE][TILE + 1];
  const int tx = (int)get_local_id(0);
  const int ty = (int)get_local_id(1);
  const int col = (int)get_group_id(0) * TILE + tx;
  const int row0 = (int)get_group_id(1) * TILE;  // first row of the tile
  const long batch = (long)get_global_id(2);
  __global const float* ab = a + batch * m * k;
  __global const float* bb = b + batch * k * n;

  float acc[WPT];
  for (int w = 0; w < WPT; ++w) {
    acc[w] = 0.0f;
  }
  for (int k0 = 0; k0 < k; k0 += TILE) {
    const int a_col = k0 + tx;
    for (int w = 0; w < WPT; ++w) {
      const int r = ty + w * RTS;  // row of the tiles
      const int a_row = row0 + r;
      const int b_row = k0 + r;
      a_tile[r][tx] = (a_row < m && a_col < k) ? ab[(long)a_row * k + a_col] : 0.0f;
      b_tile[r][tx] = (b_row < k && col < n) ? bb[(long)b_row * n + col] : 0.0f;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int kk = 0; kk < TILE; ++kk) {
      const float bv = b_tile[kk][tx];
      for (int w = 0; w < WPT; ++w) {
        acc[w] += a_tile[ty + w * RTS][kk] * bv;
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  for (int w = 0; w < WPT; ++w) {
    const int row = row0 + ty + w * RTS;
    if (row < m && col < n) {
      c[batch * m * n + (long)row * n + col] = acc[w];
    }
  }
}
