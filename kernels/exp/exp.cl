// exp on OpenCL: y = exp(x) elementwise over n float32 values.
// Config (build defines): WG = work-group size [work-items]; VEC = elements per work-item (1, 2, 4 or 8),
// loaded and stored as one vector with vloadN/vstoreN. Work-item i owns elements [i*VEC, i*VEC + VEC); the
// host launches ceil(ceil(n / VEC) / WG) * WG work-items, so the last vector may be partial (the tail, done
// element by element) and some work-items may have nothing to do.
// Plain exp() rather than native_exp(): the result has to match the torch reference to ~1e-6 relative.

#if VEC != 1 && VEC != 2 && VEC != 4 && VEC != 8
#error "VEC must be 1, 2, 4 or 8"
#endif

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void exp_kernel(__global const float* restrict x,
                                                                          __global float* restrict y,
                                                                          const long n) {
  const long i = (long)get_global_id(0);
  const long first = i * VEC;
#if VEC == 1
  if (first < n) {
    y[first] = exp(x[first]);
  }
#else
  if (first + VEC <= n) {
    KB_CAT(vstore, VEC)(exp(KB_CAT(vload, VEC)(i, x)), i, y);
  } else {
    for (long k = first; k < n; ++k) {
      y[k] = exp(x[k]);
    }
  }
#endif
}
