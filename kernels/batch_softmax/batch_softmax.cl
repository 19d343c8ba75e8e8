// batch_softmax on OpenCL: y = softmax(x) over each row of x [B, M, n] seen as B * M rows, float32, two
// passes over the row. One work-group of WG work-items per row. Pass 1: work-item i walks elements i, i + WG,
// ... (consecutive work-items read consecutive floats) keeping a running max m and sum s of exp(x - m); the
// WG partials are then merged in local memory by a tree (s rescaled to the larger max). Pass 2: y = exp(x -
// m) / s. Any n works: a work-item whose stride walk is empty (n < WG) holds the neutral partial (m =
// -INFINITY, s = 0). Config (build defines): WG = work-group size [work-items], a power of two. exp() rather
// than native_exp(): the result has to match the torch reference to ~1e-6 relative.

#ifndef WG
#define WG 256
#endif
#if WG < 1 || (WG & (WG - 1)) != 0
#error "WG must be a power of two"
#endif

// Merges the partial (mb, sb) into (*m, *s). An empty partial (max -INFINITY) must not produce
// exp(-inf - -inf) = NaN, hence the two guards.
inline void merge(float* m, float* s, const float mb, const float sb) {
  if (mb == -INFINITY) return;
  if (*m == -INFINITY) {
    *m = mb;
    *s = sb;
    return;
  }
  const float mx = fmax(*m, mb);
  *s = *s * exp(*m - mx) + sb * exp(mb - mx);
  *m = mx;
}

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void batch_softmax(__global const float* restrict x,
                                                                            __global float* restrict y,
                                                                            const long n) {
  __local float part_max[WG];
  __local float part_sum[WG];
  const int lid = (int)get_local_id(0);
  const long row = (long)get_group_id(0);
  __global const float* xr = x + row * n;
  __global float* yr = y + row * n;

  // Pass 1, online: one exp per element, exp(smaller - larger) of the old max and the new value; a select
  // rather than a branch picks which of the two is rescaled.
  float m = -INFINITY;
  float s = 0.0f;
  for (long j = lid; j < n; j += WG) {
    const float v = xr[j];
    const float mx = fmax(m, v);
    const float e = exp(fmin(m, v) - mx);  // exp(-inf) = 0 on the first element
    s = v > m ? s * e + 1.0f : s + e;
    m = mx;
  }
  part_max[lid] = m;
  part_sum[lid] = s;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int step = WG / 2; step > 0; step >>= 1) {
    if (lid < step) {
      float mm = part_max[lid];
      float ss = part_sum[lid];
      merge(&mm, &ss, part_max[lid + step], part_sum[lid + step]);
      part_max[lid] = mm;
      part_sum[lid] = ss;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  const float row_max = part_max[0];
  const float inv_sum = 1.0f / part_sum[0];

  // Pass 2.
  for (long j = lid; j < n; j += WG) {
    yr[j] = exp(xr[j] - row_max) * inv_sum;
  }
}
