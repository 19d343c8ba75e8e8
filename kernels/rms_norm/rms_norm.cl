// rms_norm on OpenCL: y = x * rstd * w over each row of x [rows, n], float32, rstd = 1 / sqrt(mean(x^2) +
// EPS). One work-group of WG work-items per row; work-item i walks elements i, i + WG, ... (consecutive
// work-items read consecutive floats): the sum of squares (a tree reduction of the WG partials in local
// memory), then the scaled output. The second walk mostly hits the cache (a row is a few KiB). Any n works: a
// work-item with no element contributes 0 to the sum. Config (build defines): WG = work-group size
// [work-items], a power of two.

#ifndef WG
#define WG 256
#endif
#if WG < 1 || (WG & (WG - 1)) != 0
#error "WG must be a power of two"
#endif
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

  float squares = 0.0f;
  for (long j = lid; j < n; j += WG) {
    const float v = xr[j];
    squares += v * v;
  }
  scratch[lid] = squares;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int step = WG / 2; step > 0; step >>= 1) {
    if (lid < step) {
      scratch[lid] += scratch[lid + step];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  const float rstd = 1.0f / sqrt(scratch[0] / (float)n + EPS);

  for (long j = lid; j < n; j += WG) {
    yr[j] = xr[j] * rstd * w[j];
  }
}
