// The prelude of the elementwise kernels' OpenCL sources (add, exp, low_mem_dropout, geglu, swiglu), embedded
// before each (kbench_add_kernel). Config (build defines, which the host always passes): WG = work-group size
// [work-items]; VEC = elements per work-item (1, 2, 4, 8 or 16), loaded and stored as one vector with
// vloadN/vstoreN (which need only float alignment).

#ifndef WG
#define WG 256
#endif
#ifndef VEC
#define VEC 4
#endif
#if VEC != 1 && VEC != 2 && VEC != 4 && VEC != 8 && VEC != 16
#error "VEC must be 1, 2, 4, 8 or 16"
#endif

#define KB_CAT_(a, b) a##b
#define KB_CAT(a, b) KB_CAT_(a, b)

// FLOATV: VEC floats.
#if VEC == 1
#define FLOATV float
#else
#define FLOATV KB_CAT(float, VEC)
#endif

