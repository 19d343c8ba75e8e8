// A reduction: sums[r] = sum of the cols values of row r of a row-major rows x cols matrix.
// One thread block per row: each of its block_size_x threads adds every block_size_x-th group of
// vector_width values, then the block adds its partial sums in a tree in shared memory.
// block_size_x (a power of two) and vector_width (1, 2 or 4; cols must be a multiple) come as -D defines.
#if vector_width == 4
typedef float4 vec;
__device__ inline float hsum(float4 v) {
  return v.x + v.y + v.z + v.w;
}
__device__ inline void add(float4& a, float4 b) {
  a.x += b.x;
  a.y += b.y;
  a.z += b.z;
  a.w += b.w;
}
__device__ inline float4 zero() {
  return make_float4(0.0f, 0.0f, 0.0f, 0.0f);
}
#elif vector_width == 2
typedef float2 vec;
__device__ inline float hsum(float2 v) {
  return v.x + v.y;
}
__device__ inline void add(float2& a, float2 b) {
  a.x += b.x;
  a.y += b.y;
}
__device__ inline float2 zero() {
  return make_float2(0.0f, 0.0f);
}
#else
typedef float vec;
__device__ inline float hsum(float v) {
  return v;
}
__device__ inline void add(float& a, float b) {
  a += b;
}
__device__ inline float zero() {
  return 0.0f;
}
#endif

extern "C" __global__ void row_sum(float* sums, const float* __restrict__ matrix, int cols) {
  const int row = blockIdx.x;
  const int tid = threadIdx.x;
  const vec* values = reinterpret_cast<const vec*>(matrix + static_cast<long long>(row) * cols);
  vec partial = zero();
  for (int i = tid; i < cols / vector_width; i += block_size_x) add(partial, values[i]);

  __shared__ float partials[block_size_x];
  partials[tid] = hsum(partial);
  __syncthreads();
  for (int stride = block_size_x / 2; stride > 0; stride /= 2) {
    if (tid < stride) partials[tid] += partials[tid + stride];
    __syncthreads();
  }
  if (tid == 0) sums[row] = partials[0];
}
