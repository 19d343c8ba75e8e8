// softmax over rows on OpenCL (softmax_two_pass: x [rows, n]; batch_softmax: x [B, M, n] as B * M rows):
// y = softmax(x) over each row, float32, two passes over the row.
// One work-group of WG work-items per row. Pass 1: work-item i walks the row's vectors of VEC floats i, i + WG,
// ... (consecutive work-items read consecutive vectors) keeping, per lane, a running max m and sum s of
// exp(x - m); its lanes and then the n % VEC floats past the last whole vector are merged into one partial,
// and the WG partials are merged in local memory by a tree (s rescaled to the larger max). Pass 2: y =
// exp(x - m) / s. Any n works: a work-item with no element holds the neutral partial (m = -INFINITY, s = 0).
// Config: WG and VEC as in kernels/common/opencl_rows_prelude.cl, which comes first. exp() rather than native_exp(): the result has to match the torch reference to ~1e-6 relative.

// The lanes of a vector, as an initializer list.
#if VEC == 8
#define VEC_LANES(v) (v).s0, (v).s1, (v).s2, (v).s3, (v).s4, (v).s5, (v).s6, (v).s7
#elif VEC == 4
#define VEC_LANES(v) (v).s0, (v).s1, (v).s2, (v).s3
#elif VEC == 2
#define VEC_LANES(v) (v).s0, (v).s1
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

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void softmax_rows(
    __global const float* restrict x, __global float* restrict y, const long n) {
  __local float part_max[WG];
  __local float part_sum[WG];
  const int lid = (int)get_local_id(0);
  const long row = (long)get_group_id(0);
  __global const float* xr = x + row * n;
  __global float* yr = y + row * n;
  const long vectors = n / VEC;
  const long tail = vectors * VEC;  // first float past the whole vectors

  // Pass 1, online, lane by lane: one exp per element, exp(smaller - larger) of the old max and the new
  // value; a select rather than a branch picks which of the two is rescaled.
  floatv vm = (floatv)(-INFINITY);
  floatv vs = (floatv)(0.0f);
  for (long j = lid; j < vectors; j += WG) {
    const floatv v = LOADV(j, xr);
    const floatv mx = fmax(vm, v);
    const floatv e = exp(fmin(vm, v) - mx);  // exp(-inf) = 0 on the first element
#if VEC == 1
    vs = v > vm ? vs * e + 1.0f : vs + e;
#else
    vs = select(vs + e, vs * e + 1.0f, v > vm);
#endif
    vm = mx;
  }
  float m = -INFINITY;
  float s = 0.0f;
#if VEC == 1
  merge(&m, &s, vm, vs);
#else
  const float lane_max[VEC] = {VEC_LANES(vm)};
  const float lane_sum[VEC] = {VEC_LANES(vs)};
  for (int l = 0; l < VEC; ++l) {
    merge(&m, &s, lane_max[l], lane_sum[l]);
  }
#endif
  for (long j = tail + lid; j < n; j += WG) {
    const float v = xr[j];
    const float mx = fmax(m, v);
    const float e = exp(fmin(m, v) - mx);
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
  for (long j = lid; j < vectors; j += WG) {
    STOREV(exp(LOADV(j, xr) - row_max) * inv_sum, j, yr);
  }
  for (long j = tail + lid; j < n; j += WG) {
    yr[j] = exp(xr[j] - row_max) * inv_sum;
  }
}
