// rms_norm on OpenCL: y = x * rstd * w over each row of x [rows, n], float32, rstd = 1 / sqrt(mean(x^2) +
// EPS). One work-group of WG work-items per row; work-item i walks the row's vectors of VEC floats i, i + WG,
// ... (consecutive work-items read consecutive vectors): the sum of squares (a tree reduction of the WG
// partials in local memory), then the scaled output. The n % VEC floats past the last whole vector are done
// one by one. The second walk mostly hits the cache (a row is a few KiB). Any n works: a work-item with no
// element contributes 0 to the sum.
// Config (build defines): WG = work-group size [work-items], a power of two; VEC = floats per load (1, 2, 4
// or 8).

#ifndef WG
#define WG 256
#endif
#if WG < 1 || (WG & (WG - 1)) != 0
#error "WG must be a power of two"
#endif
#ifndef EPS
#define EPS 1e-6f
#endif
#ifndef VEC
#define VEC 1
#endif
#if VEC != 1 && VEC != 2 && VEC != 4 && VEC != 8
#error "VEC must be 1, 2, 4 or 8"
#endif

#define KB_CAT_(a, b) a##b
#define KB_CAT(a, b) KB_CAT_(a, b)

// floatv: VEC floats; LOADV / STOREV: the i-th vector of p (vloadN / vstoreN need float alignment only).
#if VEC == 1
typedef float floatv;
#define LOADV(i, p) ((p)[i])
#define STOREV(v, i, p) ((p)[i] = (v))
#else
typedef KB_CAT(float, VEC) floatv;
#define LOADV(i, p) KB_CAT(vload, VEC)(i, p)
#define STOREV(v, i, p) KB_CAT(vstore, VEC)(v, i, p)
#endif

// Sum of the lanes, pairwise.
inline float lane_sum(floatv v) {
#if VEC == 8
  const float4 v4 = v.lo + v.hi;
  const float2 v2 = v4.lo + v4.hi;
  return v2.x + v2.y;
#elif VEC == 4
  const float2 v2 = v.lo + v.hi;
  return v2.x + v2.y;
#elif VEC == 2
  return v.x + v.y;
#else
  return v;
#endif
}

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
  scratch[lid] = total;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int step = WG / 2; step > 0; step >>= 1) {
    if (lid < step) {
      scratch[lid] += scratch[lid + step];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  const float rstd = 1.0f / sqrt(scratch[0] / (float)n + EPS);

  for (long j = lid; j < vectors; j += WG) {
    STOREV(LOADV(j, xr) * rstd * LOADV(j, w), j, yr);
  }
  for (long j = vectors * VEC + lid; j < n; j += WG) {
    yr[j] = xr[j] * rstd * w[j];
  }
}
