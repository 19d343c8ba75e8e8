// add on OpenCL: z = x + y elementwise over n float32 values.
// Config (build defines): WG = work-group size [work-items]; VEC = elements per work-item (1, 2, 4, 8 or 16),
// loaded and stored as one vector with vloadN/vstoreN. Work-item i owns elements [i*VEC, i*VEC + VEC); the
// host launches ceil(ceil(n / VEC) / WG) * WG work-items, so the last vector may be partial (the tail, done
// element by element) and some work-items may have nothing to do.

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void add_kernel(__global const float* restrict x,
                                                                          __global const float* restrict y,
                                                                          __global float* restrict z,
                                                                          const long n) {
  const long i = (long)get_global_id(0);
  const long first = i * VEC;
#if VEC == 1
  if (first < n) {
    z[first] = x[first] + y[first];
  }
#else
  if (first + VEC <= n) {
    KB_CAT(vstore, VEC)(KB_CAT(vload, VEC)(i, x) + KB_CAT(vload, VEC)(i, y), i, z);
  } else {
    for (long k = first; k < n; ++k) {
      z[k] = x[k] + y[k];
    }
  }
#endif
}
