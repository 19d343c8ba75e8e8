// The prelude of the elementwise kernels' CUDA sources (add, exp, low_mem_dropout, geglu, swiglu), embedded
// before each (kbench_add_kernel). Config (build defines, which the host always passes): BLOCK = threads per
// block; VEC = elements per thread per step (1, 2 or 4), loaded and stored as one float2/float4 where
// aligned.

#ifndef BLOCK
#define BLOCK 256
#endif
#ifndef VEC
#define VEC 4
#endif
#if VEC != 1 && VEC != 2 && VEC != 4
#error "VEC must be 1, 2 or 4"
#endif
