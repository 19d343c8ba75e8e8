// The prelude of the row kernels' OpenCL sources (softmax_rows.cl, layer_norm.cl, rms_norm.cl, welford.cl),
// embedded before each (kbench_add_kernel): one work-group of WG work-items per row, VEC floats per load.
// Config (build defines): WG = work-group size [work-items], a power of two (256 by default); VEC = floats per
// load, 1, 2, 4 or 8 (1 by default).

#ifndef WG
#define WG 256
#endif
#if WG < 1 || (WG & (WG - 1)) != 0
#error "WG must be a power of two"
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

