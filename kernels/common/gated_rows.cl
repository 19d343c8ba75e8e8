// The body of the gated linear units on OpenCL (geglu, swiglu): out[r, j] = a[r, j] * GATE(b[r, j]) with
// a = x[r, 0:N], b = x[r, N:2N], x of [M, 2N] floats. Embedded after opencl_elementwise_prelude.cl and the
// kernel's own file, which defines GATE(b) for float and floatN alike. 2-D range: dimension 1 is the row (M
// exactly), dimension 0 covers ceil(N / VEC) vectors rounded up to whole work-groups; the last vector of a
// row may be partial (the tail, done element by element).

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void gated_rows(__global const float* restrict x,
                                                                         __global float* restrict y,
                                                                         const long cols) {
  const long row = (long)get_global_id(1);
  const long v = (long)get_global_id(0);  // vector index within the row
  const long first = v * VEC;
  __global const float* a = x + row * 2 * cols;
  __global const float* b = a + cols;
  __global float* out = y + row * cols;
#if VEC == 1
  if (first < cols) {
    out[first] = a[first] * GATE(b[first]);
  }
#else
  if (first + VEC <= cols) {
    const FLOATV bv = KB_CAT(vload, VEC)(v, b);
    KB_CAT(vstore, VEC)(KB_CAT(vload, VEC)(v, a) * GATE(bv), v, out);
  } else {
    for (long k = first; k < cols; ++k) {
      const float bk = b[k];
      out[k] = a[k] * GATE(bk);
    }
  }
#endif
}
