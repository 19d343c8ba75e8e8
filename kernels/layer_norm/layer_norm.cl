// layer_norm on OpenCL: layer norm over each row of x [rows, n], float32, two-pass statistics.
// One work-group of WG work-items per row; work-item i walks the row's vectors of VEC floats i, i + WG, ...
// (consecutive work-items read consecutive vectors). Three walks over the row: the sum (-> mean), the sum of
// squared deviations from the mean (-> biased variance, as torch), then y = (x - mean) * rstd * w + b; each
// sum is a tree reduction of the WG partials in local memory. The n % VEC floats past the last whole vector
// are done one by one. The second and third walks mostly hit the cache (a row is a few KiB). Any n works: a
// work-item with no element contributes 0 to the sums.
// Config (build defines): WG = work-group size [work-items], a power of two; VEC = floats per load (1, 2, 4
// or 8).

#ifndef WG
#define WG 256
#endif
#if WG < 1 || (WG & (WG - 1)) != 0
#error "WG must be a power of two"
#endif
#ifndef EPS
#define EPS 1e-5f
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
