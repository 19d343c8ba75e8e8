// sum on OpenCL: out[r] = sum of x[r, 0:N], one work-group per row. Each of the WG work-items sums a strided
// part of the row (vector j = lid, lid + WG, ... of VEC floats, so that neighbouring work-items read
// neighbouring vectors) into a private accumulator, then the work-group adds the WG partial sums with a tree
// in local memory (log2(WG) steps, a barrier each).
// Config (build defines): WG = work-group size [work-items], a power of two; VEC = floats per load (1, 2, 4,
// 8 or 16) with vloadN (which needs only float alignment, so any N works; the N % VEC tail is added element
// by element). The host launches M * WG work-items.

#ifndef WG
#define WG 64
#endif
#ifndef VEC
#define VEC 4
#endif

#if VEC != 1 && VEC != 2 && VEC != 4 && VEC != 8 && VEC != 16
#error "VEC must be 1, 2, 4, 8 or 16"
#endif
#if WG < 1 || (WG & (WG - 1)) != 0
#error "WG must be a power of two"
#endif

#define KB_CAT_(a, b) a##b
#define KB_CAT(a, b) KB_CAT_(a, b)

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void sum_kernel(__global const float* restrict x,
                                                                          __global float* restrict y,
                                                                          const long cols) {
  __local float partial[WG];
  const long row = (long)get_group_id(0);
  const int lid = (int)get_local_id(0);
  __global const float* in = x + row * cols;

  float acc = 0.0f;
#if VEC == 1
  for (long j = lid; j < cols; j += WG) {
    acc += in[j];
  }
#else
  const long vectors = cols / VEC;
  KB_CAT(float, VEC) vacc = (KB_CAT(float, VEC))(0.0f);
  for (long j = lid; j < vectors; j += WG) {
    vacc += KB_CAT(vload, VEC)(j, in);
  }
  for (long j = vectors * VEC + lid; j < cols; j += WG) {
    acc += in[j];
  }
  // Lanes pairwise: a small tree, like the work-group's.
#if VEC == 16
  const float8 v8 = vacc.lo + vacc.hi;
  const float4 v4 = v8.lo + v8.hi;
  const float2 v2 = v4.lo + v4.hi;
#elif VEC == 8
  const float4 v4 = vacc.lo + vacc.hi;
  const float2 v2 = v4.lo + v4.hi;
#elif VEC == 4
  const float2 v2 = vacc.lo + vacc.hi;
#else
  const float2 v2 = vacc;
#endif
  acc += v2.x + v2.y;
#endif

  partial[lid] = acc;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int width = WG / 2; width > 0; width /= 2) {
    if (lid < width) {
      partial[lid] += partial[lid + width];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0) {
    y[row] = partial[0];
  }
}
