// rms_norm on OpenCL: y = x * rstd * w over each row of x [rows, n], float32, rstd = 1 / sqrt(mean(x^2) +
// EPS). One work-group of WG work-items per row; work-item i walks the row's vectors of VEC floats i, i + WG,
// ... (consecutive work-items read consecutive vectors): the sum of squares (a tree reduction of the WG
// partials in local memory), then the scaled output. The n % VEC floats past the last whole vector are done
// one by one. The second walk mostly hits the cache (a row is a few KiB). Any n works: a work-item with no
// element contributes 0 to the sum.
// Config: WG and VEC as in kernels/common/opencl_rows_prelude.cl, which comes first.

#ifndef EPS
#define EPS 1e-6f
#endif

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void rms_norm(__global const float* restrict x,
                                                                       __global const float* restrict w,
                                                                       __global float* restrict y,
                                                                       const long n) {
  __local float scratch[WG];
  const int lid = (int)get_local_id(0);
  const long row = (long)get_group_id(0);
  __global const float* xr = x + row * n;
  __global float* yr = y + row * n;
  const long vectors = n / VEC;

  floatv squares = (floatv)(0.0f);
  for (long j = lid; j < vectors; j += WG) {
    const floatv v = LOADV(j, xr);
    squares += v * v;
  }
  float total = lane_sum(squares);
  for (long j = vectors * VEC + lid; j < n; j += WG) {
    total += xr[j] * xr[j];
  }
  const float rstd = 1.0f / sqrt(group_sum(total, scratch) / (float)n + EPS);

  for (long j = lid; j < vectors; j += WG) {
    STOREV(LOADV(j, xr) * rstd * LOADV(j, w), j, yr);
  }
  for (long j = vectors * VEC + lid; j < n; j += WG) {
    yr[j] = xr[j] * rstd * w[j];
  }
}
