// welford on OpenCL: layer norm over each row of x [rows, n], float32, statistics by Welford + Chan.
// One work-group of WG work-items per row. Work-item i runs Welford's update over elements i, i + WG, ...
// (consecutive work-items read consecutive floats): count, mean and m2 (sum of squared deviations). The WG
// partials are merged in local memory by a tree with Chan's parallel formula; then every work-item writes
// y = (x - mean) * rstd * w + b over its elements, rstd = 1 / sqrt(m2 / n + EPS) (biased variance, as torch).
// Any n works: a work-item with no element holds the empty partial (count 0), which the merge skips.
// Config (build defines): WG = work-group size [work-items], a power of two.

#ifndef WG
#define WG 256
#endif
#if WG < 1 || (WG & (WG - 1)) != 0
#error "WG must be a power of two"
#endif
#ifndef EPS
#define EPS 1e-5f
#endif

// Chan, Golub and LeVeque: merges the moments (nb, mean_b, m2_b) of a disjoint set into (*na, *mean_a,
// *m2_a).
inline void merge(float* na, float* mean_a, float* m2_a, const float nb, const float mean_b,
                  const float m2_b) {
  if (nb == 0.0f) return;
  const float n = *na + nb;
  const float delta = mean_b - *mean_a;
  const float b_share = nb / n;
  *m2_a = *m2_a + m2_b + delta * delta * *na * b_share;
  *mean_a = *mean_a + delta * b_share;
  *na = n;
}

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void welford(__global const float* restrict x,
                                                                      __global const float* restrict w,
                                                                      __global const float* restrict b,
                                                                      __global float* restrict y,
                                                                      const long n) {
  __local float part_count[WG];
  __local float part_mean[WG];
  __local float part_m2[WG];
  const int lid = (int)get_local_id(0);
  const long row = (long)get_group_id(0);
  __global const float* xr = x + row * n;
  __global float* yr = y + row * n;

  float count = 0.0f;  // exact in float up to 2^24 elements
  float mean = 0.0f;
  float m2 = 0.0f;
  for (long j = lid; j < n; j += WG) {
    const float v = xr[j];
    count += 1.0f;
    const float delta = v - mean;
    mean += delta / count;
    m2 += delta * (v - mean);
  }
  part_count[lid] = count;
  part_mean[lid] = mean;
  part_m2[lid] = m2;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int step = WG / 2; step > 0; step >>= 1) {
    if (lid < step) {
      float nc = part_count[lid];
      float nm = part_mean[lid];
      float nm2 = part_m2[lid];
      merge(&nc, &nm, &nm2, part_count[lid + step], part_mean[lid + step], part_m2[lid + step]);
      part_count[lid] = nc;
      part_mean[lid] = nm;
      part_m2[lid] = nm2;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  const float row_mean = part_mean[0];
  const float rstd = 1.0f / sqrt(part_m2[0] / part_count[0] + EPS);

  for (long j = lid; j < n; j += WG) {
    yr[j] = (xr[j] - row_mean) * rstd * w[j] + b[j];
  }
}
