// layer_norm on OpenCL: layer norm over each row of x [rows, n], float32, two-pass statistics.
// One work-group of WG work-items per row; work-item i walks elements i, i + WG, ... (consecutive work-items
// read consecutive floats). Three walks over the row: the sum (-> mean), the sum of squared deviations from
// the mean
// (-> biased variance, as torch), then y = (x - mean) * rstd * w + b; each sum is a tree reduction of the WG
// partials in local memory. The second and third walks mostly hit the cache (a row is a few KiB).
// Any n works: a work-item with no element contributes 0 to the sums.
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

// The sum of one value per work-item, returned to all of them. `scratch` holds WG floats; the last barrier
// lets the caller reuse it at once.
inline float group_sum(float v, __local float* scratch) {
  const int lid = (int)get_local_id(0);
  scratch[lid] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int step = WG / 2; step > 0; step >>= 1) {
    if (lid < step) {
      scratch[lid] += scratch[lid + step];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  const float total = scratch[0];
  barrier(CLK_LOCAL_MEM_FENCE);
  return total;
}

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

  float sum = 0.0f;
  for (long j = lid; j < n; j += WG) {
    sum += xr[j];
  }
  const float mean = group_sum(sum, scratch) / (float)n;

  float squares = 0.0f;
  for (long j = lid; j < n; j += WG) {
    const float d = xr[j] - mean;
    squares += d * d;
  }
  const float rstd = 1.0f / sqrt(group_sum(squares, scratch) / (float)n + EPS);

  for (long j = lid; j < n; j += WG) {
    yr[j] = (xr[j] - mean) * rstd * w[j] + b[j];
  }
}
