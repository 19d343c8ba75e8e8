// The prelude of the row kernels' CUDA sources (softmax_rows.cu, layer_norm.cu, rms_norm.cu, welford.cu),
// embedded before each (kbench_add_kernel): one block of BLOCK threads per row. Config (build define, which
// the host always passes): BLOCK = threads per block, a multiple of 32 up to 1024 (256 by default).

#ifndef BLOCK
#define BLOCK 256
#endif
#if BLOCK < 32 || BLOCK > 1024 || BLOCK % 32 != 0
#error "BLOCK must be a multiple of 32 from 32 to 1024"
#endif
