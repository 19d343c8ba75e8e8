// geglu on OpenCL: out[r, j] = a[r, j] * gelu(b[r, j]) with a = x[r, 0:N], b = x[r, N:2N], x of [M, 2N]
// floats. gelu(b) = b / 2 * (1 + erf(b / sqrt(2))): plain erf rather than an approximation, to match torch to
// ~1e-5.
// Config (build defines): WG = work-group size along a row [work-items]; VEC = output elements per work-item
// (1, 2, 4, 8 or 16), loaded and stored as vectors with vloadN/vstoreN (which need only float alignment, so
// any N works). 2-D range: dimension 1 is the row (M exactly), dimension 0 covers ceil(N / VEC) vectors
// rounded up to whole work-groups; the last vector of a row may be partial (the tail, done element by
// element).

#ifndef WG
#define WG 64
#endif
#ifndef VEC
#define VEC 4
#endif

#if VEC != 1 && VEC != 2 && VEC != 4 && VEC != 8 && VEC != 16
#error "VEC must be 1, 2, 4, 8 or 16"
#endif

#define KB_CAT_(a, b) a##b
#define KB_CAT(a, b) KB_CAT_(a, b)

#if VEC == 1
#define FLOATV float
#else
#define FLOATV KB_CAT(float, VEC)
#endif

// Works on float and on floatN alike (erf is a gentype builtin).
#define GELU(b) (0.5f * (b) * (1.0f + erf((b) * M_SQRT1_2_F)))

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void geglu_kernel(__global const float* restrict x,
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
    out[first] = a[first] * GELU(b[first]);
  }
#else
  if (first + VEC <= cols) {
    const FLOATV bv = KB_CAT(vload, VEC)(v, b);
    KB_CAT(vstore, VEC)(KB_CAT(vload, VEC)(v, a) * GELU(bv), v, out);
  } else {
    for (long k = first; k < cols; ++k) {
      const float bk = b[k];
      out[k] = a[k] * GELU(bk);
    }
  }
#endif
}
