// welford on OpenCL: layer norm over each row of x [rows, n], float32, statistics by Welford + Chan.
// One work-group of WG work-items per row. Work-item i runs Welford's update over the row's vectors of VEC
// floats i, i + WG, ... (consecutive work-items read consecutive vectors), one lane per float of the vector:
// count (the same for every lane), mean and m2 (sum of squared deviations). Its lanes are merged with Chan's
// formula (equal counts: halves), then the n % VEC floats past the last whole vector go through a scalar
// Welford and one more merge. The WG partials are merged in local memory by a tree with Chan's parallel
// formula; then every work-item writes y = (x - mean) * rstd * w + b over its elements, rstd =
// 1 / sqrt(m2 / n + EPS) (biased variance, as torch). Any n works: a work-item with no element holds the empty
// partial (count 0), which the merge skips.
// Config: WG and VEC as in kernels/common/opencl_rows_prelude.cl, which comes first.

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

// Chan's merge of the two halves of a vector of lanes that each hold `c` elements (b's share is 1/2).
#define MERGE_HALVES(type, mean, m2, c, mean_out, m2_out)                \
  const type KB_CAT(d_, mean_out) = (mean).hi - (mean).lo;               \
  const type mean_out = (mean).lo + KB_CAT(d_, mean_out) * 0.5f;         \
  const type m2_out = (m2).lo + (m2).hi + KB_CAT(d_, mean_out) * KB_CAT(d_, mean_out) * ((c) * 0.5f)

// The moments of all VEC lanes, each of `c` elements, into (*count, *mean_out, *m2_out).
inline void merge_lanes(const floatv mean, const floatv m2, const float c, float* count, float* mean_out,
                        float* m2_out) {
#if VEC == 1
  *count = c;
  *mean_out = mean;
  *m2_out = m2;
#else
#if VEC == 8
  MERGE_HALVES(float4, mean, m2, c, mean4, m24);
  MERGE_HALVES(float2, mean4, m24, 2.0f * c, mean2, m22);
  const float lanes = 4.0f * c;  // elements per lane of mean2
#elif VEC == 4
  MERGE_HALVES(float2, mean, m2, c, mean2, m22);
  const float lanes = 2.0f * c;
#else
  const float2 mean2 = mean;
  const float2 m22 = m2;
  const float lanes = c;
#endif
  const float d = mean2.y - mean2.x;
  *count = 2.0f * lanes;
  *mean_out = mean2.x + d * 0.5f;
  *m2_out = m22.x + m22.y + d * d * (lanes * 0.5f);
#endif
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
  const long vectors = n / VEC;
  const long tail = vectors * VEC;  // first float past the whole vectors

  float steps = 0.0f;  // elements per lane; exact in float up to 2^24
  floatv vmean = (floatv)(0.0f);
  floatv vm2 = (floatv)(0.0f);
  for (long j = lid; j < vectors; j += WG) {
    const floatv v = LOADV(j, xr);
    steps += 1.0f;
    const floatv delta = v - vmean;
    vmean += delta / steps;
    vm2 += delta * (v - vmean);
  }
  float count = 0.0f;
  float mean = 0.0f;
  float m2 = 0.0f;
  if (steps > 0.0f) {
    merge_lanes(vmean, vm2, steps, &count, &mean, &m2);
  }
  float tcount = 0.0f;  // the floats past the whole vectors, plain Welford
  float tmean = 0.0f;
  float tm2 = 0.0f;
  for (long j = tail + lid; j < n; j += WG) {
    const float v = xr[j];
    tcount += 1.0f;
    const float delta = v - tmean;
    tmean += delta / tcount;
    tm2 += delta * (v - tmean);
  }
  merge(&count, &mean, &m2, tcount, tmean, tm2);  // exact when one side is empty
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

  for (long j = lid; j < vectors; j += WG) {
    STOREV((LOADV(j, xr) - row_mean) * rstd * LOADV(j, w) + LOADV(j, b), j, yr);
  }
  for (long j = tail + lid; j < n; j += WG) {
    yr[j] = (xr[j] - row_mean) * rstd * w[j] + b[j];
  }
}
