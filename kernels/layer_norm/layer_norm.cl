// layer_norm on OpenCL: layer norm over each row of x [rows, n], float32, two-pass statistics.
// One work-group of WG work-items per row; work-item i walks the row's vectors of VEC floats i, i + WG, ...
// (consecutive work-items read consecutive vectors). Three walks over the row: the sum (-> mean), the sum of
// squared deviations from the mean (-> biased variance, as torch), then y = (x - mean) * rstd * w + b; each
// sum is a tree reduction of the WG partials in local memory. The n % VEC floats past the last whole vector
// are done one by one. The second and third walks mostly hit the cache (a row is a few KiB). Any n works: a
// work-item with no element contributes 0 to the sums.
// Config: WG and VEC as in kernels/common/opencl_rows_prelude.cl, which comes first.

#ifndef EPS
#define EPS 1e-5f
#endif

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void layer_norm(__global const float* restrict x,
                                                                         __global const float* restrict w,
                                                                         __global const float* restrict b,
                                                                         __global float* restrict y,
                                                                         const long n) {
  __local float scratch[WG];
  const int lid = (int)get_local_id(0);
  const long row = (long)get_group_id(0);
  __global const float* xr = x + row * n;
  __global float* yr = y + row * n;
  const long vectors = n / VEC;
  const long tail = vectors * VEC;  // first float past the whole vectors

  floatv vsum = (floatv)(0.0f);
  for (long j = lid; j < vectors; j += WG) {
    vsum += LOADV(j, xr);
  }
  float sum = lane_sum(vsum);
  for (long j = tail + lid; j < n; j += WG) {
    sum += xr[j];
  }
  const float mean = group_sum(sum, scratch) / (float)n;

  floatv vsquares = (floatv)(0.0f);
  for (long j = lid; j < vectors; j += WG) {
    const floatv d = LOADV(j, xr) - mean;
    vsquares += d * d;
  }
  float squares = lane_sum(vsquares);
  for (long j = tail + lid; j < n; j += WG) {
    const float d = xr[j] - mean;
    squares += d * d;
  }
  const float rstd = 1.0f / sqrt(group_sum(squares, scratch) / (float)n + EPS);

  for (long j = lid; j < vectors; j += WG) {
    STOREV((LOADV(j, xr) - mean) * rstd * LOADV(j, w) + LOADV(j, b), j, yr);
  }
  for (long j = tail + lid; j < n; j += WG) {
    yr[j] = (xr[j] - mean) * rstd * w[j] + b[j];
  }
}
