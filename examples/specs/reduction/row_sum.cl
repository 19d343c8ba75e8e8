// A reduction: sums[r] = sum of the cols values of row r of a row-major rows x cols matrix.
// One work-group per row: each of its block_size_x work-items adds every block_size_x-th group of
// vector_width values, then the work-group adds its partial sums in a tree in local memory.
// block_size_x (a power of two) and vector_width (1, 2 or 4; cols must be a multiple) come as -D defines.
#if vector_width == 4
#define VEC float4
#define LOAD(p, i) vload4((i), (p))
#define HSUM(v) ((v).x + (v).y + (v).z + (v).w)
#elif vector_width == 2
#define VEC float2
#define LOAD(p, i) vload2((i), (p))
#define HSUM(v) ((v).x + (v).y)
#else
#define VEC float
#define LOAD(p, i) ((p)[i])
#define HSUM(v) (v)
#endif

__kernel void row_sum(__global float* sums, __global const float* matrix, const int cols) {
  const int row = get_group_id(0);
  const int tid = get_local_id(0);
  __global const float* values = matrix + (long)row * cols;
  VEC partial = (VEC)(0.0f);
  for (int i = tid; i < cols / vector_width; i += block_size_x) partial += LOAD(values, i);

  __local float partials[block_size_x];
  partials[tid] = HSUM(partial);
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int stride = block_size_x / 2; stride > 0; stride /= 2) {
    if (tid < stride) partials[tid] += partials[tid + stride];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (tid == 0) sums[row] = partials[0];
}
